// evk-runner: the sandboxed harness that loads and runs one candidate (DESIGN.md section 5).
//   evk-runner                 read a job (JSON, stdin), report JSON lines on stdout
//   evk-runner --check-sandbox install the filter in child processes and check that sockets,
//                              processes and file writes fail while threads still work
//   evk-runner --measure-peaks [--threads N]   print {"gbps":..,"gflops":..} and exit
// The verdict channel is the real stdout, kept on a private descriptor; fd 1 is pointed at
// stderr before the candidate is loaded, so a kernel that prints cannot corrupt the report.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "harness.h"
#include "peaks.h"
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

bool stopped_by_sandbox(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 159; }

int check_sandbox() {
  bool ok = true;
  auto report = [&](const char* what, bool pass) {
    std::printf("%-28s %s\n", what, pass ? "ok" : "FAILED");
    ok = ok && pass;
  };
  report("socket() stopped", stopped_by_sandbox(in_sandboxed_child([] {
           return ::socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1;
         })));
  report("fork() stopped", stopped_by_sandbox(in_sandboxed_child([] {
           pid_t p = ::fork();
           if (p == 0) ::_exit(0);
           return 0;
         })));
  report("execve() stopped", stopped_by_sandbox(in_sandboxed_child([] {
           char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
           ::execv("/bin/true", argv);
           return 0;
         })));
  int st = in_sandboxed_child([] {
    int fd = ::open("/tmp/evk-sandbox-probe", O_WRONLY | O_CREAT, 0600);
    return fd < 0 && errno == EACCES ? 0 : 1;
  });
  report("open() for writing denied", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  st = in_sandboxed_child([] {
    int x = 0;
    std::thread t([&] { x = 1; });
    t.join();
    return x == 1 ? 0 : 1;
  });
  report("threads allowed", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  std::printf(ok ? "sandbox ok\n" : "sandbox FAILED\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "--check-sandbox") return check_sandbox();
    if (mode == "--measure-peaks") {
      int threads = 1;
      if (argc > 3 && std::string(argv[2]) == "--threads") threads = std::stoi(argv[3]);
      std::cout << evk::runner::measure_peaks(threads).dump() << std::endl;
      return 0;
    }
    if (!mode.empty()) {
      std::fprintf(stderr, "usage: evk-runner [--check-sandbox | --measure-peaks [--threads N]] "
                           "(a job is read as JSON on stdin)\n");
      return 2;
    }
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    evk::RunnerJob job = evk::runner_job_from_json(nlohmann::json::parse(text));
    std::fflush(stdout);
    int report_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 10);
    if (report_fd < 0 || ::dup2(2, 1) < 0) {
      std::perror("evk-runner: cannot set up the verdict channel");
      return 3;
    }
    return evk::runner::run_harness(job, report_fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evk-runner: error: %s\n", e.what());
    return 3;
  }
}
