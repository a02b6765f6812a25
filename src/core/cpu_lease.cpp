#include "core/cpu_lease.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace evk {
namespace {

struct CpuState {
  int holders = 0;   // live leases of this process
  int lock_fd = -1;  // open, with our flock, while holders > 0 and the lock was ours to take
};

std::mutex g_mu;
std::map<int, CpuState> g_cpus;  // guarded by g_mu

// The CPU's lock file, taken without waiting: its descriptor, or -1 when another process
// holds it (or the file cannot be opened, which counts as free: see the header).
int try_lock(int cpu, bool* held_elsewhere) {
  *held_elsewhere = false;
  const std::string dir = cpu_lock_dir();
  if (::mkdir(dir.c_str(), 0777) == 0)
    ::chmod(dir.c_str(), 01777);  // sticky and world-writable, as /tmp: any user's runs share it
  const std::string path = dir + "/cpu" + std::to_string(cpu);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // another user's file: flock works
  if (fd < 0) return -1;
  ::fchmod(fd, 0666);  // past the umask, for the next user; fails harmlessly on theirs
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  *held_elsewhere = true;
  ::close(fd);
  return -1;
}

}  // namespace

std::string cpu_lock_dir() {
  const char* d = std::getenv("EVK_CPU_LOCK_DIR");
  return d && *d ? d : "/tmp/evokernel-cpus";
}

std::vector<int> usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.push_back(c);
  if (out.empty()) out.push_back(0);
  return out;
}

CpuLease::CpuLease(int n) {
  std::vector<int> all = usable_cpus();
  std::lock_guard<std::mutex> g(g_mu);
  const size_t take = std::min(all.size(), static_cast<size_t>(std::max(1, n)));
  // CPUs none of our leases holds are probed in ascending order until `take` are ours: a lock
  // is taken now and kept if chosen. Those not probed are never chosen (higher numbers than
  // as many free ones), and few probes leave the other processes' probes few false alarms.
  std::map<int, bool> elsewhere;
  size_t ours = 0;
  for (int c : all) {
    CpuState& s = g_cpus[c];
    if (s.holders > 0 || ours == take) continue;
    s.lock_fd = try_lock(c, &elsewhere[c]);
    ours += !elsewhere[c];
  }
  // Least held by us first (distinct CPUs within the process while there are enough), then
  // those free elsewhere, then the lowest number, so that the choice is reproducible.
  auto key = [&](int c) { return std::make_tuple(g_cpus[c].holders, elsewhere[c], c); };
  std::sort(all.begin(), all.end(), [&](int a, int b) { return key(a) < key(b); });
  cpus_.assign(all.begin(), all.begin() + static_cast<long>(take));
  std::sort(cpus_.begin(), cpus_.end());
  for (int c : cpus_) ++g_cpus[c].holders;
  for (int c : all) {  // probed but not chosen: free for others again
    CpuState& s = g_cpus[c];
    if (s.holders == 0 && s.lock_fd >= 0) {
      ::close(s.lock_fd);
      s.lock_fd = -1;
    }
  }
}

CpuLease::~CpuLease() {
  std::lock_guard<std::mutex> g(g_mu);
  for (int c : cpus_) {
    CpuState& s = g_cpus[c];
    if (--s.holders == 0 && s.lock_fd >= 0) {
      ::close(s.lock_fd);  // closing the last descriptor drops the flock
      s.lock_fd = -1;
    }
  }
}

}  // namespace evk
