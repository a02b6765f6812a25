// parallel_for, the one pool under the parallel tasks of a run and the verifications of a
// batch. Also run under ThreadSanitizer (`make test-tsan`): the bodies here share state the
// way the agent's and the verifier's do, through the pool's hand-out and its failure slot.
#include "core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace evk {
namespace {

TEST(Parallel, EveryIndexRunsExactlyOnceWhateverTheThreadCount) {
  for (int threads : {-3, 0, 1, 2, 7, 64}) {
    for (size_t n : {0u, 1u, 5u, 200u}) {
      std::vector<std::atomic<int>> runs(n);
      parallel_for(n, threads, [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(runs[i].load(), 1) << "index " << i << " of " << n << ", threads " << threads;
    }
  }
}

// Two bodies are in flight at once: the second index is handed to another thread while the
// first waits for it (a pool that ran bodies one after another would never get there).
TEST(Parallel, BodiesRunConcurrentlyOnDistinctThreads) {
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;
  bool met = false;
  std::set<std::thread::id> ids;
  parallel_for(2, 2, [&](size_t) {
    std::unique_lock lk(mu);
    ids.insert(std::this_thread::get_id());
    ++in_flight;
    cv.notify_all();
    // Not a timing assertion: the bound only keeps a broken pool from hanging the test.
    met = cv.wait_for(lk, std::chrono::minutes(2), [&] { return in_flight == 2; }) || met;
  });
  EXPECT_TRUE(met);
  EXPECT_EQ(ids.size(), 2u);
}

TEST(Parallel, TheFirstFailureIsRethrownAndStopsTheHandOut) {
  std::atomic<int> ran{0};
  try {
    parallel_for(100, 1, [&](size_t i) {
      ran.fetch_add(1);
      if (i == 3) throw std::runtime_error("body 3 failed");
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "body 3 failed");
  }
  EXPECT_EQ(ran.load(), 4);  // one thread: nothing after the failing index was handed out
}

// Several threads failing at once: one exception comes back, and every body that started has
// finished by then (the bodies write into state the caller frees on return).
TEST(Parallel, ConcurrentFailuresEndWithOneExceptionAfterEveryBodyFinished) {
  std::atomic<int> started{0}, finished{0};
  EXPECT_THROW(parallel_for(64, 8,
                            [&](size_t i) {
                              started.fetch_add(1);
                              std::this_thread::yield();
                              finished.fetch_add(1);
                              if (i % 2 == 0) throw std::logic_error("even index");
                            }),
               std::logic_error);
  EXPECT_EQ(started.load(), finished.load());
  EXPECT_GE(started.load(), 1);
}

}  // namespace
}  // namespace evk
