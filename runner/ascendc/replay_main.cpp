// evk-ascendc-replay: replays the API traces of an Ascend C candidate's calls (trace.h) in a
// fresh emulated AI Core, in a process that never loads kernel code. The verdict's outputs and
// modeled cycles are the replay's. The traces are adversarial input (the kernel's process
// wrote them), so this process is jailed and sandboxed like the runner before it reads one.
//
// Job: a RunnerJob (JSON, stdin) whose sets and inputs_fd are the verification's, whose
// outputs_fd has one slot per replay, and whose trace_fd holds the replay directory:
//   u64 kReplayMagic, u32 count, then per replay {u32 set, u32 0, u64 offset, u64 bytes}
//   (a call's trace blob at `offset` of the same memfd).
// Report (stdout, one JSON line per replay, in order):
//   {"replay":k,"cycles":c,"ms":m,"launches":[...]}   outputs in slot k
//   {"replay":k,"error":"[TRACE_...] ..."}              the trace was rejected
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "../channels.h"
#include "../sandbox.h"
#include "backends/ascendc/npu_constants.h"
#include "core/error.h"
#include "emulator.h"
#include "modeled_json.h"
#include "trace.h"

namespace evk::runner::ascendc {
namespace {

using nlohmann::json;

constexpr uint64_t kReplayMagic = 0x45564b52504c4159ull;  // "EVKRPLAY"

struct Entry {
  uint32_t set, pad;
  uint64_t offset, bytes;
};

// Replays one call: the set's inputs and poisoned outputs in fresh device memory, the trace,
// the outputs into `slot`.
json replay_one(const RunnerJob& job, const Mapping& in, const Mapping& tr, const Entry& e,
                uint8_t* slot) {
  if (e.set >= job.sets.size() || e.offset > tr.size() || e.bytes > tr.size() - e.offset)
    throw Error("replay directory entry out of range");
  const RunnerSet& set = job.sets[e.set];
  Emulator& em = Emulator::get();
  em.reset();
  std::vector<uint64_t> bases, sizes;
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    const RunnerTensor& t = set.inputs[i];
    if (t.offset > in.size() || t.nbytes > in.size() - t.offset) throw Error("input out of range");
    bases.push_back(em.gm_alloc(t.nbytes, "in." + std::to_string(i)));
    sizes.push_back(t.nbytes);
    em.gm_write(bases.back(), in.data() + t.offset, t.nbytes);
  }
  for (const auto& o : set.outputs) {
    std::vector<uint8_t> p(o.nbytes());
    poison_bytes(o.dtype, p.data(), p.size());
    bases.push_back(em.gm_alloc(p.size(), o.name));
    sizes.push_back(p.size());
    em.gm_write(bases.back(), p.data(), p.size());
  }
  em.begin_call();
  try {
    trace::replay_call(tr.data() + e.offset, e.bytes, bases, sizes);
  } catch (const trace::Rejected& r) {
    return {{"error", r.what()}};
  }
  auto off = output_offsets(set);
  if (off.empty() || off.back() + set.outputs.back().nbytes() <= job.slot_bytes)
    for (size_t i = 0; i < set.outputs.size(); ++i)
      em.gm_read(bases[set.inputs.size() + i], slot + off[i], set.outputs[i].nbytes());
  return modeled_json(em);
}

int run(const RunnerJob& job) {
  Mapping in(job.inputs_fd, job.inputs_bytes, false);
  Mapping out(job.outputs_fd, job.slot_bytes * static_cast<size_t>(job.slots), true);
  Mapping tr(job.trace_fd, job.trace_bytes, false);
  if (std::string why = enter_sandbox(STDOUT_FILENO, job.library); !why.empty()) throw Error(why);
  Emulator::get().set_fail_handler([](const std::string&, const std::string& m) {
    throw trace::Rejected(m +
                          " (while the trace was replayed: the runner's emulator accepted "
                          "this call, so the trace is not what the kernel's calls were)");
  });
  uint64_t magic = 0;
  uint32_t count = 0;
  if (tr.size() < 12) throw Error("no replay directory");
  std::memcpy(&magic, tr.data(), 8);
  std::memcpy(&count, tr.data() + 8, 4);
  if (magic != kReplayMagic || count > static_cast<uint32_t>(job.slots) ||
      12 + static_cast<uint64_t>(count) * sizeof(Entry) > tr.size())
    throw Error("bad replay directory");
  for (uint32_t k = 0; k < count; ++k) {
    Entry e;
    std::memcpy(&e, tr.data() + 12 + k * sizeof(Entry), sizeof e);
    json r = replay_one(job, in, tr, e, out.data() + k * job.slot_bytes);
    r["replay"] = k;
    std::string line = r.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size()) return 3;
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace evk::runner::ascendc

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: evk-ascendc-replay (a replay job is read as JSON on stdin)\n");
    return 2;
  }
  try {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    auto job = evk::runner_job_from_json(nlohmann::json::parse(text));
    return evk::runner::ascendc::run(job);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evk-ascendc-replay: error: %s\n", e.what());
    return 3;
  }
}
