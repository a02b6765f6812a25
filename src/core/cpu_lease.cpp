#include "core/cpu_lease.h"

#include <sched.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace evk {
namespace {

std::mutex g_mu;
std::map<int, int> g_holders;  // CPU -> live leases holding it

}  // namespace

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
  // Least held first; among equals the lowest number, so that the choice is reproducible.
  std::stable_sort(all.begin(), all.end(),
                   [](int a, int b) { return g_holders[a] < g_holders[b]; });
  size_t take = std::min(all.size(), static_cast<size_t>(std::max(1, n)));
  cpus_.assign(all.begin(), all.begin() + static_cast<long>(take));
  std::sort(cpus_.begin(), cpus_.end());
  for (int c : cpus_) ++g_holders[c];
}

CpuLease::~CpuLease() {
  std::lock_guard<std::mutex> g(g_mu);
  for (int c : cpus_) --g_holders[c];
}

}  // namespace evk
