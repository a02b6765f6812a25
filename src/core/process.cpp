#include "core/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  struct rlimit rl {
    value, value
  };
  ::setrlimit(resource, &rl);
}

// Closes every descriptor above 2 except `keep` (sorted) and clears close-on-exec on the kept
// ones. close_range when the kernel has it (5.9+), a loop over the descriptor limit otherwise.
// Async-signal-safe.
void close_inherited(const std::vector<int>& keep) {
  int from = 3;
  auto close_span = [](int lo, int hi) {  // [lo, hi]
    if (lo > hi) return;
    if (::syscall(SYS_close_range, lo, hi, 0) == 0) return;
    struct rlimit rl {};
    long top = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 ? static_cast<long>(rl.rlim_cur) : 1024;
    if (top > (1 << 20)) top = 1 << 20;
    long end = hi < top ? hi : top - 1;
    for (long f = lo; f <= end; ++f) ::close(static_cast<int>(f));
  };
  for (int k : keep) {
    close_span(from, k - 1);
    int flags = ::fcntl(k, F_GETFD);
    if (flags >= 0) ::fcntl(k, F_SETFD, flags & ~FD_CLOEXEC);
    from = k + 1;
  }
  close_span(from, INT_MAX);
}

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const ProcessOptions& opt, const JailPlan* jail, const cpu_set_t* cpus,
                             char* const* argv, char* const* envp, int in_fd, int out_fd,
                             int err_fd) {
  ::setpgid(0, 0);
  ::dup2(in_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  close_inherited(opt.keep_fds);
  if (!jail && !opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) _exit(126);
  if (cpus && ::sched_setaffinity(0, sizeof *cpus, cpus) != 0) {
    const char msg[] = "sched_setaffinity failed: the CPUs asked for are not available\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(126);
  }
  set_limit(RLIMIT_AS, opt.address_space_bytes);
  set_limit(RLIMIT_CPU, opt.cpu_seconds);
  set_limit(RLIMIT_FSIZE, opt.file_size_bytes);
  set_limit(RLIMIT_NPROC, opt.max_processes);
  struct rlimit core {
    0, 0
  };
  ::setrlimit(RLIMIT_CORE, &core);
  // Signals ignored by the parent would stay ignored across exec: restore the defaults.
  ::signal(SIGPIPE, SIG_DFL);
  if (jail && jail->enter(opt.cwd.c_str()) != 0) _exit(126);
  ::execvpe(argv[0], argv, envp);
  const char msg[] = "exec failed: no such program or not executable\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(127);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The options with keep_fds sorted (the child walks them in order without allocating), each
// checked to be an open descriptor above 2. Checked before the pipes are made: they would
// reuse a closed descriptor's number.
ProcessOptions checked(const std::vector<std::string>& args, const ProcessOptions& opt) {
  if (args.empty()) throw Error("run_process: empty argv");
  ProcessOptions sorted = opt;
  std::sort(sorted.keep_fds.begin(), sorted.keep_fds.end());
  for (int k : sorted.keep_fds)
    if (k <= 2 || ::fcntl(k, F_GETFD) < 0)
      throw Error("run_process: keep_fds holds " + std::to_string(k) +
                  ", which is not an open descriptor above 2");
  return sorted;
}

// Forks the child, its argv, environment, CPU mask and jail made ready first (the child may
// not allocate), in its own process group. Returns its pid; the parent's pipe ends stay open.
pid_t spawn(const std::vector<std::string>& args, const ProcessOptions& opt, Pipe& in, Pipe& out,
            Pipe& err) {
  std::vector<std::string> env_strings = build_env(opt);
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  std::optional<JailPlan> jail;
  if (opt.jail) jail.emplace(*opt.jail);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : opt.cpus) {
    if (c < 0 || c >= CPU_SETSIZE) throw Error("run_process: no CPU " + std::to_string(c));
    CPU_SET(c, &cpus);
  }
  pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0)
    exec_child(opt, jail ? &*jail : nullptr, opt.cpus.empty() ? nullptr : &cpus, argv.data(),
               envp.data(), in.fd[0], out.fd[1], err.fd[1]);
  ::setpgid(pid, pid);  // also in the parent, so the group exists before we may kill it
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  return pid;
}

// Writes the child's stdin (small payloads: JSON job descriptions), then closes it. A child
// that stops reading ends the write, not this process (SIGPIPE ignored).
void feed(Pipe& in, const std::string& data) {
  if (!data.empty()) {
    ::signal(SIGPIPE, SIG_IGN);
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::write(in.fd[1], data.data() + off, data.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  in.close_end(1);
}

// One read of `fd` into `buf`, keeping at most `cap` bytes; false at end of file or error.
bool drain(int fd, std::string& buf, bool& truncated, size_t cap) {
  char chunk[65536];
  ssize_t n = ::read(fd, chunk, sizeof chunk);
  if (n <= 0) return false;
  size_t room = cap > buf.size() ? cap - buf.size() : 0;
  buf.append(chunk, std::min(room, static_cast<size_t>(n)));
  if (static_cast<size_t>(n) > room) truncated = true;
  return true;
}

// Reads stdout and stderr until both close; at the deadline, kills the group and stops.
void poll_output(pid_t pid, int out_fd, int err_fd, const ProcessOptions& opt,
                 Clock::time_point start, ProcessResult& r) {
  int fds[2] = {out_fd, err_fd};
  bool open[2] = {true, true};
  while (open[0] || open[1]) {
    int wait_ms = -1;
    if (opt.timeout_s > 0) {
      double left = opt.timeout_s - seconds_since(start);
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
        bool more = i == 0 ? drain(fds[0], r.out, r.out_truncated, opt.output_cap)
                           : drain(fds[1], r.err, r.err_truncated, opt.output_cap);
        if (i == 0 && opt.on_stdout && r.out.size() > before)
          opt.on_stdout(pid, std::string_view(r.out).substr(before));
        if (!more) open[i] = false;
      }
  }
}

// Waits for the child (one that closed its pipes may still run), honouring the deadline, then
// kills what is left of its group (detached grandchildren) and records how it ended.
void reap(pid_t pid, const ProcessOptions& opt, Clock::time_point start, ProcessResult& r) {
  int status = 0;
  struct rusage ru {};
  while (true) {
    pid_t w = ::wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (opt.timeout_s > 0 && seconds_since(start) >= opt.timeout_s && !r.timed_out) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    ::usleep(1000);
  }
  ::kill(-pid, SIGKILL);
  r.wall_s = seconds_since(start);
  r.max_rss_kb = ru.ru_maxrss;
  r.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  if (r.timed_out) r.term_signal = 0;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& args, const ProcessOptions& options) {
  const ProcessOptions opt = checked(args, options);
  Pipe in, out, err;
  const auto start = Clock::now();
  const pid_t pid = spawn(args, opt, in, out, err);
  ProcessResult r;
  feed(in, opt.stdin_data);
  poll_output(pid, out.fd[0], err.fd[0], opt, start, r);
  reap(pid, opt, start, r);
  return r;
}

double process_tree_cpu_s(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto close_paren = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close_paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(close_paren + 2));
  std::string f;
  double ticks = 0;
  // Fields 3.. after the name: utime and stime are the 14th and 15th of the line, cutime and
  // cstime (reaped children) the 16th and 17th.
  for (int k = 3; k <= 17 && fields >> f; ++k)
    if (k >= 14) ticks += std::stod(f);
  double total = ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream kids(task.path() / "children");
    for (pid_t kid; kids >> kid;) total += process_tree_cpu_s(kid);
  }
  return total;
}

}  // namespace evk
