// Handing out CPUs to concurrent child processes so that parallel verifications get distinct
// CPUs while there are enough: each lease takes the `n` CPUs (of those this process may run
// on) that the fewest live leases of this process hold, preferring among those the CPUs no
// other evokernel process on the machine holds, and gives them back when destroyed.
//
// Other processes' leases are seen through one lock file per CPU (cpu_lock_dir()/cpuN): a
// process holds an exclusive flock on a CPU's file while any of its leases holds that CPU,
// so two runs, or two test binaries, on one machine pin their runners apart instead of both
// on the lowest CPU. The kernel drops a dead process's locks. Where the files cannot be
// opened every CPU counts as free elsewhere (the within-process behaviour).
#pragma once
#include <string>
#include <vector>

namespace evk {

// $EVK_CPU_LOCK_DIR, else /tmp/evokernel-cpus: the processes that share one see each other.
std::string cpu_lock_dir();

class CpuLease {
 public:
  explicit CpuLease(int n);  // n >= 1; more than there are CPUs: all of them
  ~CpuLease();
  CpuLease(const CpuLease&) = delete;
  CpuLease& operator=(const CpuLease&) = delete;
  const std::vector<int>& cpus() const { return cpus_; }

 private:
  std::vector<int> cpus_;
};

// The CPUs this process may run on (its affinity mask), ascending.
std::vector<int> usable_cpus();

}  // namespace evk
