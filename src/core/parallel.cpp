#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace evk {

void parallel_for(size_t n, int threads, const std::function<void(size_t)>& body) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mu;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lk(failure_mu);
        if (!failure) failure = std::current_exception();
        next = n;  // hand out nothing more
      }
    }
  };
  size_t k = std::clamp<size_t>(threads < 1 ? 1 : static_cast<size_t>(threads), 1, std::max<size_t>(n, 1));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < k; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace evk
