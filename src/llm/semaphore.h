// A counting semaphore with a run-time count (std::counting_semaphore fixes its maximum at
// compile time) and a scoped permit, so a permit is returned on every path out.
#pragma once
#include <condition_variable>
#include <mutex>

namespace evk {

class Semaphore {
 public:
  explicit Semaphore(int permits) : free_(permits < 1 ? 1 : permits) {}
  void acquire() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return free_ > 0; });
    --free_;
  }
  void release() {
    {
      std::lock_guard lock(mu_);
      ++free_;
    }
    cv_.notify_one();
  }

  class Permit {
   public:
    explicit Permit(Semaphore& s) : s_(s) { s_.acquire(); }
    ~Permit() { s_.release(); }
    Permit(const Permit&) = delete;
    Permit& operator=(const Permit&) = delete;

   private:
    Semaphore& s_;
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
};

}  // namespace evk
