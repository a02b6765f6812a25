// evk-runner: the sandboxed harness that loads and runs one candidate (docs/architecture.md §6).
//   evk-runner                 read a job (JSON, stdin), report JSON lines on stdout
//   evk-runner --check-sandbox install the filter in child processes and check that what it
//                              must stop is stopped (sockets, processes, exec, io_uring,
//                              pidfd, SysV IPC, signals to others, priority, affinity,
//                              timers, ownership, xattrs, file writes) while threads and
//                              reading still work; report Landlock's ABI
//   evk-runner --measure-peaks [--threads N] [--reps R]   print {"gbps":..,"gflops":..} and exit
// The verdict channel is the real stdout, kept on a private descriptor; fd 1 is pointed at
// stderr before the candidate is loaded, so a kernel that prints cannot corrupt the report.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "harness.h"
#include "harness_base.h"
#include "peaks.h"
#include "runtime_prelude.h"
#include "sandbox.h"

namespace {

// Runs `probe` in a sandboxed child; returns its wait status.
template <class F>
int in_sandboxed_child(F probe) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int null_fd = ::open("/dev/null", O_WRONLY);
    evk::runner::install_sandbox(null_fd);
    ::_exit(probe());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

bool stopped_by_sandbox(int status) {
  return WIFEXITED(status) && WEXITSTATUS(status) == 159;
}

// A raw call (past glibc's wrappers) with up to four arguments.
int raw(long nr, long a = 0, long b = 0, long c = 0, long d = 0) {
  return ::syscall(nr, a, b, c, d) >= 0 ? 0 : 1;
}

int check_sandbox() {
  bool ok = true;
  auto report = [&](const char* what, bool pass) {
    std::printf("%-34s %s\n", what, pass ? "ok" : "FAILED");
    ok = ok && pass;
  };
  auto stops = [&](const char* what, auto probe) {
    report(what, stopped_by_sandbox(in_sandboxed_child(probe)));
  };
  stops("socket() stopped", [] { return ::socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1; });
  stops("fork() stopped", [] {
    pid_t p = ::fork();
    if (p == 0) ::_exit(0);
    return 0;
  });
  stops("execve() stopped", [] {
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    ::execv("/bin/true", argv);
    return 0;
  });
  stops("io_uring_setup() stopped", [] {
    char params[120] = {};
    return raw(SYS_io_uring_setup, 4, reinterpret_cast<long>(params));
  });
  stops("pidfd_open() stopped", [] { return raw(SYS_pidfd_open, ::getppid(), 0); });
  stops("shmget() stopped", [] { return raw(SYS_shmget, 0, 4096, 01000 | 0600); });
  stops("rt_sigqueueinfo(other) stopped", [] {
    siginfo_t info{};
    info.si_code = -1;
    return raw(SYS_rt_sigqueueinfo, ::getppid(), 0, reinterpret_cast<long>(&info));
  });
  stops("kill(other) stopped", [] { return raw(SYS_kill, ::getppid(), 0); });
  stops("setpriority() stopped", [] { return raw(SYS_setpriority, 0, 0, 0); });
  stops("sched_setaffinity() stopped", [] {
    cpu_set_t set;
    ::sched_getaffinity(0, sizeof set, &set);
    return raw(SYS_sched_setaffinity, 0, sizeof set, reinterpret_cast<long>(&set));
  });
  stops("timer_create() stopped", [] {
    int id = 0;
    return raw(SYS_timer_create, CLOCK_MONOTONIC, 0, reinterpret_cast<long>(&id));
  });
  stops("lchown() stopped", [] { return raw(SYS_lchown, reinterpret_cast<long>("/"), -1, -1); });
  stops("setxattr() stopped", [] {
    return raw(SYS_setxattr, reinterpret_cast<long>("/"), reinterpret_cast<long>("user.x"),
               reinterpret_cast<long>("x"), 1);
  });
  int st = in_sandboxed_child([] {
    int fd = ::open("/tmp/evk-sandbox-probe", O_WRONLY | O_CREAT, 0600);
    return fd < 0 && errno == EACCES ? 0 : 1;
  });
  report("open() for writing denied", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  st = in_sandboxed_child([] {
    int fd = ::open("/proc/self/status", O_RDONLY);
    return fd >= 0 ? 0 : 1;
  });
  report("open() for reading allowed", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  st = in_sandboxed_child([] {
    int x = 0;
    std::thread t([&] { x = 1; });
    t.join();
    return x == 1 ? 0 : 1;
  });
  report("threads allowed", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  // Pinning: a mask set before the filter holds, and cannot be widened under it (above).
  st = in_sandboxed_child([] {
    cpu_set_t set;
    return ::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1 ? 0 : 1;
  });
  report("pinned mask kept under the filter", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  // Landlock is a layer where the kernel has it: reported, not required here.
  int abi = evk::runner::landlock_abi();
  if (abi >= 1)
    std::printf("%-34s ok\n", ("landlock (ABI " + std::to_string(abi) + ")").c_str());
  else
    std::printf("%-34s unavailable\n", "landlock");
  std::printf(ok ? "sandbox ok\n" : "sandbox FAILED\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "--check-sandbox") return check_sandbox();
    if (mode == "--measure-peaks") {
      int threads = 1, reps = 7;
      for (int i = 2; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "--threads") threads = std::stoi(argv[i + 1]);
        if (std::string(argv[i]) == "--reps") reps = std::stoi(argv[i + 1]);
      }
      std::cout << evk::runner::measure_peaks(threads, reps).dump() << std::endl;
      return 0;
    }
    if (!mode.empty()) {
      std::fprintf(stderr,
                   "usage: evk-runner [--check-sandbox | --measure-peaks [--threads N] [--reps R]] "
                   "(a job is read as JSON on stdin)\n");
      return 2;
    }
    return evk::runner::serve_job("evk-runner", evk::runner::run_harness);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evk-runner: error: %s\n", e.what());
    return 3;
  }
}
