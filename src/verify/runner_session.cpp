#include "verify/runner_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace evk {
using nlohmann::json;

namespace {

// The trace region: u64 magic, u64 bytes, then the last call's trace (runner/ascendc/trace.h).
constexpr size_t kTraceBytes = 256u << 20;
constexpr uint64_t kTraceMagic = 0x45564b5452414345ull;

size_t slot_aligned(size_t n) {
  return (n + kRunnerAlign - 1) / kRunnerAlign * kRunnerAlign;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("the runner's control socket is closed");
    off += static_cast<size_t>(n);
  }
}

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

RunnerSession::RunnerSession(const std::string& library, const std::vector<std::string>& abi,
                             const std::vector<SessionSet>& sets, int slots, bool traced) {
  job_.library = library;
  job_.abi = abi;
  uint64_t at = 0;
  for (const auto& s : sets) {
    RunnerSet rs;
    for (const Tensor* t : s.inputs) {
      rs.inputs.push_back({t->dtype, t->shape, at, t->data.size()});
      at += slot_aligned(t->data.size());
    }
    rs.outputs = s.outputs;
    job_.slot_bytes = std::max<uint64_t>(job_.slot_bytes, rs.record_bytes());
    job_.sets.push_back(std::move(rs));
  }
  job_.slot_bytes = std::max<uint64_t>(job_.slot_bytes, kRunnerAlign);
  job_.inputs_bytes = std::max<uint64_t>(at, kRunnerAlign);
  job_.slots = slots;

  // The inputs: written, then sealed, so that neither side can change them afterwards.
  in_fd_ = ::memfd_create("evk-inputs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (in_fd_ < 0) throw_errno("memfd_create (inputs)");
  if (::ftruncate(in_fd_, static_cast<off_t>(job_.inputs_bytes)) != 0)
    throw_errno("ftruncate (inputs)");
  for (size_t s = 0; s < sets.size(); ++s)
    for (size_t i = 0; i < sets[s].inputs.size(); ++i) {
      const auto& d = sets[s].inputs[i]->data;
      size_t off = 0;
      while (off < d.size()) {
        ssize_t n = ::pwrite(in_fd_, d.data() + off, d.size() - off,
                             static_cast<off_t>(job_.sets[s].inputs[i].offset + off));
        if (n <= 0) throw_errno("writing the inputs region");
        off += static_cast<size_t>(n);
      }
    }
  if (::fcntl(in_fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
    throw_errno("sealing the inputs region");

  out_fd_ = ::memfd_create("evk-outputs", MFD_CLOEXEC);
  if (out_fd_ < 0) throw_errno("memfd_create (outputs)");
  out_bytes_ = job_.slot_bytes * static_cast<size_t>(slots);
  if (::ftruncate(out_fd_, static_cast<off_t>(out_bytes_)) != 0) throw_errno("ftruncate (outputs)");
  void* p = ::mmap(nullptr, out_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, out_fd_, 0);
  if (p == MAP_FAILED) throw_errno("mapping the outputs region");
  out_ = static_cast<uint8_t*>(p);

  if (traced) {
    // Sparse: only the pages a call's trace fills are ever backed.
    trace_fd_ = ::memfd_create("evk-trace", MFD_CLOEXEC);
    if (trace_fd_ < 0) throw_errno("memfd_create (trace)");
    job_.trace_bytes = kTraceBytes;
    if (::ftruncate(trace_fd_, static_cast<off_t>(kTraceBytes)) != 0)
      throw_errno("ftruncate (trace)");
    void* t = ::mmap(nullptr, kTraceBytes, PROT_READ, MAP_SHARED, trace_fd_, 0);
    if (t == MAP_FAILED) throw_errno("mapping the trace region");
    trace_ = static_cast<const uint8_t*>(t);
    job_.trace_fd = trace_fd_;
  }

  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw_errno("socketpair");
  ctl_ = sv[0];
  child_ctl_ = sv[1];
  job_.inputs_fd = in_fd_;
  job_.outputs_fd = out_fd_;
  job_.control_fd = child_ctl_;
}

RunnerSession::~RunnerSession() {
  if (ctl_ >= 0) ::shutdown(ctl_, SHUT_RDWR);  // a runner still waiting for commands ends
  if (th_.joinable()) th_.join();
  for (int fd : {ctl_, child_ctl_, in_fd_, out_fd_, trace_fd_})
    if (fd >= 0) ::close(fd);
  if (out_) ::munmap(out_, out_bytes_);
  if (trace_) ::munmap(const_cast<uint8_t*>(trace_), kTraceBytes);
}

void RunnerSession::start(const RunnerLimits& lim, const std::string& workdir) {
  RunnerHooks hooks;
  hooks.keep_fds = {in_fd_, out_fd_, child_ctl_};
  if (trace_fd_ >= 0) hooks.keep_fds.push_back(trace_fd_);
  hooks.on_stdout = [this](pid_t pid, std::string_view) { pid_.store(pid); };
  th_ = std::thread([this, lim, workdir, hooks] {
    try {
      run_ = run_runner(job_, lim, workdir, hooks);
    } catch (...) {
      start_error_ = std::current_exception();  // rethrown by finish(): a verifier problem
    }
    finished_.store(true);
  });
}

double RunnerSession::cpu_s() const {
  pid_t p = pid_.load();
  return p > 0 ? process_tree_cpu_s(p) : -1;
}

// The next reply line; nullopt (and a violation when it is one) when the runner ended first or
// the line is not the reply `expect` names.
std::optional<json> RunnerSession::reply(const char* expect) {
  if (!violation_.empty()) return std::nullopt;
  while (true) {
    size_t nl;
    while ((nl = buf_.find('\n')) != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto j = parse_runner_reply(line, expect);
      if (!j) {
        violation_ = "the control channel carried \"" + line.substr(0, 120) +
                     "\" where the runner's reply \"" + expect + "\" was due";
        return std::nullopt;
      }
      return j;
    }
    pollfd p{ctl_, POLLIN, 0};
    int rc = ::poll(&p, 1, 20);
    if (rc < 0 && errno != EINTR) return std::nullopt;
    if (rc > 0) {
      char chunk[65536];
      ssize_t n = ::read(ctl_, chunk, sizeof chunk);
      last_read_ = std::chrono::steady_clock::now();
      if (n > 0) {
        buf_.append(chunk, static_cast<size_t>(n));
        if (buf_.size() > (1u << 20)) {
          violation_ = "the control channel was flooded";
          return std::nullopt;
        }
        continue;
      }
      if (n == 0) return std::nullopt;
    }
    if (finished_.load()) {
      // The runner is gone; take what it wrote last, then give up.
      char chunk[65536];
      ::fcntl(ctl_, F_SETFL, O_NONBLOCK);
      ssize_t n = ::read(ctl_, chunk, sizeof chunk);
      if (n > 0) {
        buf_.append(chunk, static_cast<size_t>(n));
        continue;
      }
      return std::nullopt;
    }
  }
}

std::vector<uint8_t> RunnerSession::last_trace() const {
  if (!trace_) return {};
  uint64_t magic, n;
  std::memcpy(&magic, trace_, 8);
  std::memcpy(&n, trace_ + 8, 8);
  if (magic != kTraceMagic || n > kTraceBytes - 16) return {};
  return std::vector<uint8_t>(trace_ + 16, trace_ + 16 + n);
}

bool RunnerSession::wait_ready() {
  return reply("ready").has_value();
}

bool RunnerSession::load(int group, int set) {
  if (!violation_.empty() || finished_.load()) return false;
  try {
    write_all(ctl_, json{{"op", "load"}, {"group", group}, {"set", set}}.dump() + "\n");
  } catch (const Error&) {
    return false;
  }
  return reply("ok").has_value();
}

RunnerSession::Batch RunnerSession::run(const std::vector<Call>& calls,
                                        const std::vector<int>& set_of_group) {
  Batch b;
  if (!violation_.empty() || finished_.load()) return b;
  json list = json::array();
  for (const Call& c : calls) {
    list.push_back({c.group, c.slot});
    if (!c.poison) continue;
    const RunnerSet& s = job_.sets[static_cast<size_t>(set_of_group[static_cast<size_t>(c.group)])];
    auto off = output_offsets(s);
    uint8_t* base = out_ + static_cast<size_t>(c.slot) * job_.slot_bytes;
    for (size_t i = 0; i < s.outputs.size(); ++i)
      poison_bytes(s.outputs[i].dtype, base + off[i], s.outputs[i].nbytes());
  }
  // From the command's sending to the arrival of "done": never shorter than the calls took
  // (the arrival of "go" could be read late, with "done" in the same chunk).
  auto t_send = std::chrono::steady_clock::now();
  try {
    write_all(ctl_, json{{"op", "run"}, {"calls", list}}.dump() + "\n");
  } catch (const Error&) {
    return b;
  }
  if (!reply("go")) return b;
  auto done = reply("done");
  if (!done) return b;
  b.wall_ms = ms_between(t_send, last_read_);
  try {
    RunnerDone d = parse_runner_done(*done);
    b.claimed_ms = std::move(d.ms);
    b.rc = d.rc;
    b.exception = std::move(d.exception);
    b.failed_call = d.failed_call;
    b.modeled = std::move(d.modeled);
  } catch (const Error& e) {
    violation_ = std::string("the runner's \"done\" reply is malformed: ") + e.what();
    return b;
  }
  auto checked = reply("checked");
  if (!checked) return b;
  auto mutated = checked->find("mutated");
  if (mutated != checked->end() && !mutated->is_string()) {
    violation_ = "the runner's \"checked\" reply is malformed: \"mutated\" is not a string";
    return b;
  }
  if (mutated != checked->end()) b.mutated = mutated->get<std::string>();
  b.ok = true;
  return b;
}

bool RunnerSession::quit() {
  if (!violation_.empty() || finished_.load()) return false;
  try {
    write_all(ctl_, json{{"op", "quit"}}.dump() + "\n");
  } catch (const Error&) {
    return false;
  }
  quit_sent_ = true;
  return reply("result").has_value();
}

void RunnerSession::drain_after_quit() {
  ::fcntl(ctl_, F_SETFL, O_NONBLOCK);
  char chunk[4096];
  ssize_t n;
  while ((n = ::read(ctl_, chunk, sizeof chunk)) > 0) buf_.append(chunk, static_cast<size_t>(n));
  if (violation_.empty() && buf_.find_first_not_of(" \t\r\n") != std::string::npos)
    violation_ = "the control channel carried \"" +
                 buf_.substr(buf_.find_first_not_of(" \t\r\n"), 120) +
                 "\" after the runner's final reply";
}

RunnerRun RunnerSession::finish() {
  if (th_.joinable()) {
    if (!quit_sent_) ::shutdown(ctl_, SHUT_WR);  // a runner waiting for a command reads EOF
    th_.join();
  }
  if (start_error_) std::rethrow_exception(start_error_);
  if (quit_sent_) drain_after_quit();
  return run_;
}

}  // namespace evk
