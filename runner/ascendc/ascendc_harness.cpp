#include "ascendc_harness.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "../harness_base.h"
#include "../sandbox.h"
#include "backends/ascendc/npu_constants.h"
#include "core/error.h"
#include "emulator.h"
#include "gm_direct.h"
#include "modeled_json.h"
#include "trace.h"

namespace evk::runner::ascendc {
namespace {

using nlohmann::json;
using Bytes = std::vector<uint8_t>;

const char kDirectGm[] =
    "[DIRECT_GM_ACCESS] an Ascend C API call was handed a pointer into global memory where it "
    "takes host memory (a LocalTensor or GlobalTensor object, a kernel name, aclrtMemcpy's "
    "source): pass the API objects themselves; a kernel reads and writes GM through "
    "GlobalTensor, DataCopy or its own __gm__ pointers";

// What the fault handler (gm_direct.h) writes, and where, for a device-address fault that is
// not a kernel's direct access: a load_error event on the report channel while the library
// loads, the current call's "done" and "checked" replies during a run. Prepared outside the
// handler, written with one write() (async-signal-safe).
int g_fault_fd = -1;
char g_fault_text[8192];

void set_fault_text(int fd, const std::string& s) {
  g_fault_fd = fd;
  std::snprintf(g_fault_text, sizeof g_fault_text, "%s", s.c_str());
}

void refuse_fault() {
  ssize_t n = ::write(g_fault_fd, g_fault_text, std::strlen(g_fault_text));
  (void)n;
  ::_exit(0);
}

// One tensor in emulated global memory with the host shape/stride arrays the ABI points at.
struct Buffer {
  DType dtype = DType::F32;
  std::vector<int64_t> shape, strides;
  size_t nbytes = 0;
  uint64_t addr = 0;
  Buffer(DType t, const std::vector<int64_t>& s, size_t n, const std::string& name)
      : dtype(t), shape(s), nbytes(n), addr(Emulator::get().gm_alloc(n, name)) {
    strides.assign(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
  }
  evk_tensor view() const {
    return {reinterpret_cast<void*>(static_cast<uintptr_t>(addr)), static_cast<int32_t>(dtype),
            static_cast<int32_t>(shape.size()), shape.data(), strides.data()};
  }
  void upload(const uint8_t* p) { Emulator::get().gm_write(addr, p, nbytes); }
  void download(uint8_t* p) const { Emulator::get().gm_read(addr, p, nbytes); }
};
using Buffers = std::vector<std::unique_ptr<Buffer>>;

// The input buffers of one group and the set they hold.
struct Group {
  int set = -1;
  Buffers bufs;
};

// Tensors in the emulated AI Core's global memory; the cycle model's latency for each call.
class Harness : public HarnessBase {
 public:
  using HarnessBase::HarnessBase;

 private:
  // The kernels run on the emulated device: its peaks are the roofline's, not this CPU's. An
  // emulator error, or a fault on global memory that is not a kernel's direct access
  // (gm_direct.h), ends the load or the call in progress with its text.
  std::string prepare() override {
    events_.emit(
        {{"event", "device_peaks"}, {"gbps", npu::kHbmGBps}, {"gflops", npu::kCubeFp32Gflops}});
    Emulator::get().set_fail_handler([this](const std::string&, const std::string& message) {
      if (call_ < 0) {
        load_error(message);
      } else {
        reply_done(0, message, call_);
      }
      ::_exit(0);
    });
    set_fault_text(rep_fd_, json{{"event", "load_error"},
                                 {"what", std::string(kDirectGm) + " (while the library loaded)"}}
                                    .dump() +
                                "\n");
    gm_direct::install(refuse_fault);
    if (job_.trace_fd >= 0) {
      trace_map_ = std::make_unique<Mapping>(job_.trace_fd, job_.trace_bytes, true);
      trace::writer().attach(trace_map_->data(), trace_map_->size());
    }
    return "";
  }

  std::string export_hint() const override { return "extern \"C\" EVK_EXPORT"; }

  // No threads: the direct-access handler opens a GM page for one instruction of the faulting
  // thread (gm_direct.h), which another thread could read uncharged. An AI Core kernel has none.
  std::string sandbox() override {
    SandboxOptions opt;
    opt.threads = false;
    return enter_sandbox(rep_fd_, job_.library, opt);
  }

  void load(int g, int s) override {
    const RunnerSet& set = input_set(s);
    Group& grp = groups_[g];
    if (!same_layout(grp.bufs, set.inputs)) {
      grp.bufs.clear();
      for (size_t i = 0; i < set.inputs.size(); ++i) {
        const auto& t = set.inputs[i];
        grp.bufs.push_back(std::make_unique<Buffer>(t.dtype, t.shape, t.nbytes, input_name(i)));
      }
    }
    for (size_t i = 0; i < set.inputs.size(); ++i) grp.bufs[i]->upload(source(set.inputs[i]));
    grp.set = s;
  }

  // The device output buffers of a slot for a set's output shapes (kept: same addresses).
  Buffers& outputs(int slot, int s) {
    Buffers& b = outs_[{slot, s}];
    if (b.empty())
      for (const auto& o : job_.sets[static_cast<size_t>(s)].outputs)
        b.push_back(std::make_unique<Buffer>(o.dtype, o.shape, o.nbytes(), o.name));
    return b;
  }

  struct Call {
    int group = 0, slot = 0;
    std::vector<evk_tensor> in, out;
  };

  Call prepare(int g, int slot) {
    auto it = groups_.find(g);
    if (it == groups_.end() || it->second.set < 0)
      throw Error("group " + std::to_string(g) + " holds no set");
    if (slot < 0 || slot >= job_.slots) throw Error("no slot " + std::to_string(slot));
    Call c;
    c.group = g;
    c.slot = slot;
    for (auto& b : it->second.bufs) c.in.push_back(b->view());
    for (auto& b : outputs(slot, it->second.set)) c.out.push_back(b->view());
    return c;
  }

  // The parent poisoned the slot; the device buffers behind it get the same poison, so a
  // kernel that writes nothing shows as never written, not as the previous call's outputs.
  void poison(const Call& c) {
    for (auto& b : outputs(c.slot, groups_.at(c.group).set)) {
      Bytes p(b->nbytes);
      poison_bytes(b->dtype, p.data(), p.size());
      b->upload(p.data());
    }
  }

  void store(const Call& c) {
    const RunnerSet& set = job_.sets[static_cast<size_t>(groups_.at(c.group).set)];
    auto off = output_offsets(set);
    uint8_t* base = out_->data() + static_cast<size_t>(c.slot) * job_.slot_bytes;
    auto& bufs = outputs(c.slot, groups_.at(c.group).set);
    for (size_t i = 0; i < bufs.size(); ++i) bufs[i]->download(base + off[i]);
  }

  void run_calls(const json& calls) override {
    std::vector<Call> cs;
    for (const auto& c : calls) cs.push_back(prepare(c.at(0).get<int>(), c.at(1).get<int>()));
    ms_.clear();
    modeled_ = json();
    used_.clear();
    for (const auto& c : cs) used_.push_back(c.group);
    int rc = 0, failed = -1;
    std::string exception;
    ctl_.emit({{"go", true}});
    for (size_t k = 0; k < cs.size(); ++k) {
      Call& c = cs[k];
      poison(c);
      call_ = static_cast<int>(k);
      set_fault_text(job_.control_fd, done_text(0, kDirectGm, call_));
      Emulator::get().begin_call();
      trace::writer().begin_call(buffer_table(c));
      rc = call_forward(fn_, c.in, c.out, exception);
      call_ = -1;
      ++calls_;
      ms_.push_back(Emulator::get().call_ms());
      if (k == 0) modeled_ = modeled_json(Emulator::get());
      store(c);
      if (rc != 0 || !exception.empty()) {
        failed = static_cast<int>(k);
        break;
      }
    }
    reply_done(rc, exception, failed);
  }

  // The call's buffers as the trace names them: inputs, then outputs (ABI order).
  std::vector<std::pair<uint64_t, uint64_t>> buffer_table(const Call& c) {
    std::vector<std::pair<uint64_t, uint64_t>> t;
    for (auto& b : groups_.at(c.group).bufs) t.emplace_back(b->addr, b->nbytes);
    for (auto& b : outputs(c.slot, groups_.at(c.group).set)) t.emplace_back(b->addr, b->nbytes);
    return t;
  }

  std::string done_text(int rc, const std::string& exception, int failed) const {
    json d = {
        {"done", true}, {"ms", ms_}, {"rc", rc}, {"exception", exception}, {"failed_call", failed}};
    if (!modeled_.is_null()) d["modeled"] = modeled_;
    return d.dump() + "\n" + json{{"checked", true}, {"mutated", mutation()}}.dump() + "\n";
  }

  void reply_done(int rc, const std::string& exception, int failed) {
    std::string s = done_text(rc, exception, failed);
    size_t nl = s.find('\n');
    ctl_.emit(json::parse(s.substr(0, nl)));
    ctl_.emit(json::parse(s.substr(nl + 1)));
  }

  // "in.0 at element 12" when a group's device buffers no longer hold the set loaded there.
  std::string mutation() const {
    for (int g : used_) {
      const Group& grp = groups_.at(g);
      const RunnerSet& set = job_.sets[static_cast<size_t>(grp.set)];
      for (size_t i = 0; i < grp.bufs.size(); ++i) {
        Bytes now(grp.bufs[i]->nbytes);
        grp.bufs[i]->download(now.data());
        if (std::string m = mutation_text(input_name(i), now.data(), source(set.inputs[i]),
                                          now.size(), grp.bufs[i]->dtype);
            !m.empty())
          return m;
      }
    }
    return "";
  }

  std::map<int, Group> groups_;
  std::map<std::pair<int, int>, Buffers> outs_;  // (slot, set) -> device outputs
  std::vector<double> ms_;
  std::vector<int> used_;
  json modeled_;
  int call_ = -1;  // the call in progress within a run, -1 outside one
  std::unique_ptr<Mapping> trace_map_;
};

}  // namespace

int run_ascendc_harness(const RunnerJob& job, int report_fd) {
  Harness h(job, report_fd);
  return h.run();
}

}  // namespace evk::runner::ascendc
