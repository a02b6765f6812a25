#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "core/error.h"

extern char** environ;

namespace evk {

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* desc = sigdescr_np(sig);
  return fmt::format("SIG{} ({})", abbrev ? abbrev : std::to_string(sig).c_str(),
                     desc ? desc : "unknown");
}

std::string ProcessResult::describe() const {
  if (timed_out) return fmt::format("timed out after {:.1f} s", wall_s);
  if (term_signal) return "killed by " + signal_name(term_signal);
  return fmt::format("exit code {}", exit_code);
}

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw_errno("pipe");
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

std::vector<std::string> build_env(const ProcessOptions& opt) {
  std::map<std::string, std::string> env;
  if (!opt.clear_env)
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  for (const auto& [k, v] : opt.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

void set_limit(int resource, uint64_t value) {
  if (value == 0) return;
  struct rlimit rl{value, value};
  ::setrlimit(resource, &rl);
}

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const ProcessOptions& opt, char* const* argv, char* const* envp,
                             int in_fd, int out_fd, int err_fd) {
  ::setpgid(0, 0);
  ::dup2(in_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  for (int fd : opt.keep_fds) ::fcntl(fd, F_SETFD, 0);
  if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) _exit(126);
  set_limit(RLIMIT_AS, opt.address_space_bytes);
  set_limit(RLIMIT_CPU, opt.cpu_seconds);
  set_limit(RLIMIT_FSIZE, opt.file_size_bytes);
  set_limit(RLIMIT_NPROC, opt.max_processes);
  struct rlimit core{0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  // Signals ignored by the parent would stay ignored across exec: restore the defaults.
  ::signal(SIGPIPE, SIG_DFL);
  ::execvpe(argv[0], argv, envp);
  const char msg[] = "exec failed: no such program or not executable\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(127);
}

}  // namespace

double process_tree_cpu_s(pid_t pid) {
  std::string text;
  if (FILE* f = std::fopen(fmt::format("/proc/{}/stat", pid).c_str(), "r")) {
    char buf[1024];
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    text.assign(buf, n);
  }
  auto close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return 0;
  // Fields after the command: state(3) ... utime(14) stime(15).
  std::vector<std::string> fields;
  size_t at = close_paren + 2;
  while (at < text.size()) {
    size_t sp = text.find(' ', at);
    if (sp == std::string::npos) sp = text.size();
    fields.push_back(text.substr(at, sp - at));
    at = sp + 1;
  }
  if (fields.size() < 13) return 0;
  double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return (std::stod(fields[11]) + std::stod(fields[12])) / ticks;
}

ProcessResult run_process(const std::vector<std::string>& args, const ProcessOptions& opt) {
  if (args.empty()) throw Error("run_process: empty argv");
  std::vector<std::string> env_strings = build_env(opt);
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  Pipe in, out, err;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) exec_child(opt, argv.data(), envp.data(), in.fd[0], out.fd[1], err.fd[1]);
  ::setpgid(pid, pid);  // also in the parent, so the group exists before we may kill it
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);

  ProcessResult r;
  // Feed stdin (small payloads: JSON job descriptions), then close it.
  if (!opt.stdin_data.empty()) {
    ::signal(SIGPIPE, SIG_IGN);
    size_t off = 0;
    while (off < opt.stdin_data.size()) {
      ssize_t n = ::write(in.fd[1], opt.stdin_data.data() + off, opt.stdin_data.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  in.close_end(1);

  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto drain = [&](int fd, std::string& buf, bool& truncated) {
    char chunk[65536];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) return false;
    size_t room = opt.output_cap > buf.size() ? opt.output_cap - buf.size() : 0;
    buf.append(chunk, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) truncated = true;
    return true;
  };

  int fds[2] = {out.fd[0], err.fd[0]};
  bool open[2] = {true, true};
  while (open[0] || open[1]) {
    int wait_ms = -1;
    if (opt.timeout_s > 0) {
      double left = opt.timeout_s - elapsed();
      if (left <= 0) {
        r.timed_out = true;
        ::kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left * 1000) + 1;
    }
    pollfd p[2];
    int np = 0;
    int idx[2];
    for (int i = 0; i < 2; ++i)
      if (open[i]) {
        p[np] = {fds[i], POLLIN, 0};
        idx[np++] = i;
      }
    int rc = ::poll(p, static_cast<nfds_t>(np), wait_ms);
    if (rc < 0 && errno != EINTR) break;
    for (int j = 0; j < np && rc > 0; ++j)
      if (p[j].revents & (POLLIN | POLLHUP | POLLERR)) {
        int i = idx[j];
        size_t before = r.out.size();
        bool more = i == 0 ? drain(fds[0], r.out, r.out_truncated)
                           : drain(fds[1], r.err, r.err_truncated);
        if (i == 0 && more && opt.on_stdout)
          opt.on_stdout(pid, std::string_view(r.out).substr(before));
        if (!more) open[i] = false;
      }
  }

  int status = 0;
  struct rusage ru{};
  // A child that closed its pipes may still run: wait for it, honouring the deadline.
  while (true) {
    pid_t w = ::wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (opt.timeout_s > 0 && elapsed() >= opt.timeout_s && !r.timed_out) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    ::usleep(1000);
  }
  ::kill(-pid, SIGKILL);  // leave nothing of the group behind (detached grandchildren)
  r.wall_s = elapsed();
  r.max_rss_kb = ru.ru_maxrss;
  r.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  if (r.timed_out) r.term_signal = 0;
  return r;
}

}  // namespace evk
