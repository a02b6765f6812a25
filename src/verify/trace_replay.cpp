#include "verify/trace_replay.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "backends/registry.h"
#include "core/error.h"
#include "core/paths.h"

namespace evk {
namespace {

constexpr uint64_t kReplayMagic = 0x45564b52504c4159ull;  // "EVKRPLAY" (replay_main.cpp)

struct Entry {
  uint32_t set, pad;
  uint64_t offset, bytes;
};

class Memfd {
 public:
  Memfd(const char* name, size_t bytes) : n_(std::max<size_t>(bytes, 64)) {
    fd_ = ::memfd_create(name, MFD_CLOEXEC);
    if (fd_ < 0) throw_errno(std::string("memfd_create (") + name + ")");
    if (::ftruncate(fd_, static_cast<off_t>(n_)) != 0) throw_errno("ftruncate (replay)");
    void* p = ::mmap(nullptr, n_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw_errno("mapping the replay region");
    p_ = static_cast<uint8_t*>(p);
  }
  ~Memfd() {
    if (p_) ::munmap(p_, n_);
    if (fd_ >= 0) ::close(fd_);
  }
  Memfd(const Memfd&) = delete;
  Memfd& operator=(const Memfd&) = delete;
  int fd() const { return fd_; }
  uint8_t* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  int fd_ = -1;
  uint8_t* p_ = nullptr;
  size_t n_;
};

// The replay executable of the backend whose runner recorded the traces (its registry row).
std::string replay_of(const std::string& runner) {
  for (const BackendRow& row : backend_rows())
    if (row.runner == runner && !row.replay.empty()) return row.replay;
  throw Error("no backend replays the traces of " + runner +
              ": only a backend with Timing::Modeled and a replay in its registry row records "
              "traces (backends/registry.cpp)");
}

}  // namespace

std::vector<ReplayResult> replay_traces(const RunnerJob& job, const std::vector<ReplayCall>& calls,
                                        RunnerLimits lim, const std::string& workdir) {
  std::vector<ReplayResult> results;
  if (calls.empty()) return results;
  size_t dir = 12 + calls.size() * sizeof(Entry), total = dir;
  for (const auto& c : calls) total += c.trace.size();
  Memfd traces("evk-replay-traces", total);
  std::memcpy(traces.data(), &kReplayMagic, 8);
  uint32_t count = static_cast<uint32_t>(calls.size());
  std::memcpy(traces.data() + 8, &count, 4);
  size_t at = dir;
  for (size_t k = 0; k < calls.size(); ++k) {
    Entry e{static_cast<uint32_t>(calls[k].set), 0, at, calls[k].trace.size()};
    std::memcpy(traces.data() + 12 + k * sizeof(Entry), &e, sizeof e);
    if (!calls[k].trace.empty()) std::memcpy(traces.data() + at, calls[k].trace.data(), e.bytes);
    at += e.bytes;
  }
  Memfd outs("evk-replay-outputs", job.slot_bytes * calls.size());

  RunnerJob r = job;
  r.outputs_fd = outs.fd();
  r.slots = static_cast<int>(calls.size());
  r.control_fd = -1;
  r.trace_fd = traces.fd();
  r.trace_bytes = traces.size();
  lim.executable = replay_of(lim.executable);
  if (!std::filesystem::exists(runner_path().parent_path() / lim.executable))
    throw ReplayUnavailable("the API-trace replay " + lim.executable + " is missing beside " +
                            runner_path().string() + ": build it (make build) or install it");
  RunnerHooks hooks;
  hooks.keep_fds = {r.inputs_fd, r.outputs_fd, r.trace_fd};
  RunnerRun run = run_runner(r, lim, workdir, hooks);
  if (!run.process.ok())
    throw Error("the API-trace replay " + run.process.describe() + ": " +
                run.process.err.substr(0, 300));
  std::istringstream in(run.process.out);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("replay")) continue;
    size_t k = j.value("replay", size_t{0});
    if (k != results.size() || k >= calls.size())
      throw Error("the replay's report is out of order");
    ReplayResult x;
    x.error = j.value("error", "");
    x.cycles = j.value("cycles", 0.0);
    x.ms = j.value("ms", 0.0);
    x.modeled = j;
    x.modeled.erase("replay");
    x.outputs.assign(outs.data() + k * job.slot_bytes, outs.data() + (k + 1) * job.slot_bytes);
    results.push_back(std::move(x));
  }
  if (results.size() != calls.size())
    throw Error("the replay reported " + std::to_string(results.size()) + " of " +
                std::to_string(calls.size()) + " calls");
  return results;
}

}  // namespace evk
