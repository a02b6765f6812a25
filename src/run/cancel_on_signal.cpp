#include "run/cancel_on_signal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.h"

namespace evk {

namespace {

volatile sig_atomic_t g_write_fd = -1;

void on_signal(int sig) {  // async-signal-safe: one write
  int saved = errno;
  unsigned char c = static_cast<unsigned char>(sig);
  if (g_write_fd >= 0) {
    ssize_t ignored = ::write(g_write_fd, &c, 1);
    (void)ignored;
  }
  errno = saved;
}

}  // namespace

CancelOnSignal::CancelOnSignal(std::function<void(int)> cleanup) : cleanup_(std::move(cleanup)) {
  if (g_write_fd >= 0) throw Error("CancelOnSignal: a guard is already installed");
  if (::pipe2(pipe_, O_CLOEXEC) != 0) throw_errno("CancelOnSignal: pipe");
  g_write_fd = pipe_[1];
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, &old_int_);
  ::sigaction(SIGTERM, &sa, &old_term_);
  watcher_ = std::thread([this] {
    unsigned char c = 0;
    while (true) {
      ssize_t n = ::read(pipe_[0], &c, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || c == 0) return;  // 0: the destructor asks us to stop
      int sig = c;
      cleanup_(sig);
      // Die of the signal, as without the guard.
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      ::sigaction(sig, &dfl, nullptr);
      ::kill(::getpid(), sig);
      return;
    }
  });
}

CancelOnSignal::~CancelOnSignal() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
  unsigned char stop = 0;
  ssize_t ignored = ::write(pipe_[1], &stop, 1);
  (void)ignored;
  watcher_.join();
  g_write_fd = -1;
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

}  // namespace evk
