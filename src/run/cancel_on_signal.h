// Ctrl-C or SIGTERM while work is out on a cluster: run a clean-up (cancel the jobs) before the
// process dies of the signal, so nothing keeps running for a controller that is gone. The
// process still ends by the signal (exit status 128+N), which leaves a run exactly as a kill
// would: resumable with --resume, every committed attempt kept.
// One guard at a time per process. The handler only writes the signal number to a pipe; the
// clean-up runs on the guard's own thread, where anything (processes, locks) is allowed.
#pragma once
#include <csignal>
#include <functional>
#include <thread>

namespace evk {

class CancelOnSignal {
 public:
  explicit CancelOnSignal(std::function<void(int signal)> cleanup);
  ~CancelOnSignal();  // restores the previous handlers
  CancelOnSignal(const CancelOnSignal&) = delete;
  CancelOnSignal& operator=(const CancelOnSignal&) = delete;

 private:
  std::function<void(int)> cleanup_;
  int pipe_[2] = {-1, -1};
  struct sigaction old_int_ {
  }, old_term_{};
  std::thread watcher_;
};

}  // namespace evk
