// Handing out CPUs to concurrent child processes so that parallel verifications get distinct
// CPUs while there are enough: each lease takes the `n` CPUs (of those this process may run
// on) that the fewest live leases hold, and gives them back when destroyed. Within one
// process; leases of other processes are not seen.
#pragma once
#include <vector>

namespace evk {

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
