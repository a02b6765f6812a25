#include "ascendc_harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "../channels.h"
#include "../sandbox.h"
#include "backends/ascendc/npu_constants.h"
#include "core/error.h"
#include "emulator.h"
#include "evokernel/kernel_abi.h"

namespace evk::runner::ascendc {
namespace {

using nlohmann::json;
using Bytes = std::vector<uint8_t>;
typedef int (*evk_forward_fn)(const evk_tensor*, int32_t, evk_tensor*, int32_t);

int g_report_fd = -1;
char g_segv_event[4096];

// A kernel or host code that dereferences a GM_ADDR lands in a PROT_NONE reservation: the
// report is written with one write() (async-signal-safe) and the process leaves at once.
void on_sigsegv(int sig, siginfo_t* info, void*) {
  if (Emulator::is_device_address(reinterpret_cast<uintptr_t>(info->si_addr))) {
    ssize_t n = ::write(g_report_fd, g_segv_event, std::strlen(g_segv_event));
    (void)n;
    ::_exit(0);
  }
  ::signal(sig, SIG_DFL);  // any other fault: the default crash, reported as a signal
}

void install_segv_handler(int report_fd) {
  g_report_fd = report_fd;
  json e = Observations().event({});
  e["exception"] =
      "[DIRECT_GM_ACCESS] the code read or wrote global memory through a pointer: a GM_ADDR "
      "(and any __gm__ T* made from it) is a device address that only the Ascend C API may "
      "touch; move data with DataCopy into a LocalTensor, read single values with "
      "GlobalTensor::GetValue, and keep host code to tiling and ACLRT_LAUNCH_KERNEL";
  e["failed_phase"] = "a kernel or evk_forward";
  std::string s = "\n" + e.dump() + "\n";
  std::snprintf(g_segv_event, sizeof g_segv_event, "%s", s.c_str());
  static char stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = sizeof stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsegv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
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
  void upload(const Bytes& b) { Emulator::get().gm_write(addr, b.data(), nbytes); }
  Bytes download() const {
    Bytes b(nbytes);
    Emulator::get().gm_read(addr, b.data(), nbytes);
    return b;
  }
  void poison() {
    bool floating = dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16;
    upload(Bytes(nbytes, floating ? 0xFF : 0xA5));
  }
};
using Buffers = std::vector<std::unique_ptr<Buffer>>;

std::vector<std::vector<Tensor>> load_seeds(const RunnerJob& job) {
  std::vector<std::vector<Tensor>> seeds;
  for (const auto& f : job.seed_files) {
    SafetensorsFile st = read_safetensors(f);
    std::vector<Tensor> s;
    for (const auto& name : job.abi) {
      auto it = st.tensors.find(name);
      if (it == st.tensors.end()) throw Error(f + " has no tensor " + name);
      s.push_back(std::move(it->second));
    }
    seeds.push_back(std::move(s));
  }  // the reference outputs are dropped here, before the candidate is loaded
  return seeds;
}

std::vector<Bytes> snapshot(const Buffers& b) {
  std::vector<Bytes> s;
  for (const auto& x : b) s.push_back(x->download());
  return s;
}

std::string first_difference(const std::vector<Bytes>& now, const std::vector<Bytes>& was,
                             const Buffers& bufs, const std::vector<std::string>& names) {
  for (size_t i = 0; i < now.size(); ++i) {
    const Bytes& a = now[i];
    const Bytes& b = was[i];
    if (a.size() != b.size() || std::memcmp(a.data(), b.data(), a.size()) == 0) continue;
    size_t k = 0;
    while (a[k] == b[k]) ++k;
    return fmt::format("{} at element {}", names[i],
                       k / std::max<size_t>(1, dtype_size(bufs[i]->dtype)));
  }
  return "";
}

class Harness {
 public:
  Harness(const RunnerJob& job, int report_fd) : job_(job), rep_(report_fd), rep_fd_(report_fd) {}

  int run() {
    auto seeds = load_seeds(job_);
    for (const auto& o : job_.outputs) out_names_.push_back(o.name);
    int out_fd = ::open(job_.outputs_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out_fd < 0) throw_errno("cannot create " + job_.outputs_path);
    records_.open(out_fd);
    Emulator::get().set_fail_handler([this](const std::string&, const std::string& message) {
      obs_.exception = message;
      obs_.failed_phase = phase_;
      result();
      ::_exit(0);
    });
    install_segv_handler(rep_fd_);

    void* lib = ::dlopen(job_.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return load_error(std::string("cannot load the library: ") + ::dlerror());
    fn_ = reinterpret_cast<evk_forward_fn>(::dlsym(lib, "evk_forward"));
    if (!fn_)
      return load_error(
          "the library does not export evk_forward: define it with extern \"C\" "
          "EVK_EXPORT and include evokernel/kernel_abi.h");
    install_sandbox(rep_fd_);

    std::vector<Buffers> ins, outs;
    std::vector<std::vector<Bytes>> out_snap;
    for (size_t s = 0; s < seeds.size(); ++s) {
      ins.push_back(upload_inputs(seeds[s]));
      outs.push_back(fresh_outputs());
      std::string phase = fmt::format("seed {}", s);
      if (!call(phase, ins[s], outs[s])) return result();
      note_mutation(ins[s], seeds[s], "during " + phase);
      out_snap.push_back(snapshot(outs[s]));
      write_record(fmt::format("seed{}", s), out_snap.back());
    }
    sleep_ms(job_.after_return_delay_ms);
    for (size_t s = 0; s < outs.size() && obs_.late.empty(); ++s)
      if (auto m = first_difference(snapshot(outs[s]), out_snap[s], outs[s], out_names_);
          !m.empty())
        obs_.late = fmt::format("{} changed after seed {} returned", m, s);

    if (seeds.size() >= 2) {
      size_t last = seeds.size() - 1;
      for (size_t i = 0; i < ins[last].size(); ++i) ins[last][i]->upload(seeds[0][i].data);
      for (auto& o : outs[last]) o->poison();
      if (!call("reuse", ins[last], outs[last])) return result();
      note_mutation(ins[last], seeds[0], "during the reuse call");
      write_record("reuse", snapshot(outs[last]));
      if (!mixed_probe(seeds, out_snap[0])) return result();
      for (size_t i = 0; i < ins[last].size(); ++i) ins[last][i]->upload(seeds[last][i].data);
    }
    if (job_.timing) {
      // One modeled call per input set: the cycle model needs no repeats, and every seed is
      // timed so that data-dependent control flow shows in the median.
      std::vector<double> ms;
      for (size_t s = 0; s < seeds.size(); ++s) {
        if (!call("timing", ins[s], outs[s])) return result();
        ms.push_back(Emulator::get().call_ms());
        if (s == 0) timed_ = modeled_json();
        note_mutation(ins[s], seeds[s], "during the timed calls");
        write_record(fmt::format("post{}", s), snapshot(outs[s]));
      }
      obs_.set_timing(ms);
    }
    return result();
  }

 private:
  Buffers upload_inputs(const std::vector<Tensor>& s) {
    Buffers b;
    for (size_t i = 0; i < s.size(); ++i) {
      b.push_back(std::make_unique<Buffer>(s[i].dtype, s[i].shape, s[i].data.size(), job_.abi[i]));
      b.back()->upload(s[i].data);
    }
    return b;
  }

  Buffers fresh_outputs() {
    Buffers b;
    for (const auto& o : job_.outputs) {
      b.push_back(std::make_unique<Buffer>(o.dtype, o.shape, o.nbytes(), o.name));
      b.back()->poison();
    }
    return b;
  }

  bool call(const std::string& phase, Buffers& in, Buffers& out) {
    rep_.emit({{"event", "call"}, {"phase", phase}});
    phase_ = phase;
    std::vector<evk_tensor> vi, vo;
    for (auto& b : in) vi.push_back(b->view());
    for (auto& b : out) vo.push_back(b->view());
    Emulator::get().begin_call();
    int rc = 0;
    try {
      rc = fn_(vi.data(), static_cast<int32_t>(vi.size()), vo.data(),
               static_cast<int32_t>(vo.size()));
    } catch (const std::exception& e) {
      obs_.exception = e.what();
    } catch (...) {
      obs_.exception = "an exception that is not a std::exception";
    }
    if (!obs_.exception.empty()) {
      obs_.failed_phase = phase;
      return false;
    }
    if (rc != 0) {
      obs_.failed_rc = rc;
      obs_.failed_phase = phase;
      return false;
    }
    return true;
  }

  void note_mutation(const Buffers& in, const std::vector<Tensor>& values,
                     const std::string& when) {
    if (!obs_.mutated.empty()) return;
    std::vector<Bytes> was;
    for (const auto& t : values) was.push_back(t.data);
    if (auto m = first_difference(snapshot(in), was, in, job_.abi); !m.empty())
      obs_.mutated = m + " " + when;
  }

  // Seed 1's inputs except a sparse comb of seed 0's values: a cache keyed on a few elements
  // returns seed 0's outputs.
  bool mixed_probe(const std::vector<std::vector<Tensor>>& seeds, const std::vector<Bytes>& out0) {
    bool mixed_any = false;
    std::vector<Bytes> values;
    for (size_t i = 0; i < seeds[1].size(); ++i) {
      values.push_back(seeds[1][i].data);
      DType t = seeds[1][i].dtype;
      if (t != DType::F32 && t != DType::F64) continue;
      size_t es = dtype_size(t), n = values[i].size() / es;
      if (n <= 256) continue;
      mixed_any = true;
      const uint8_t* src = seeds[0][i].data.data();
      for (size_t k = 0; k < n; ++k)
        if (k < 64 || k + 64 >= n || k % 61 == 0)
          std::memcpy(values[i].data() + k * es, src + k * es, es);
    }
    bool float_out = false;
    for (const auto& o : job_.outputs)
      float_out = float_out || o.dtype == DType::F32 || o.dtype == DType::F64;
    if (!mixed_any || !float_out) return true;
    Buffers in;
    for (size_t i = 0; i < values.size(); ++i) {
      in.push_back(std::make_unique<Buffer>(seeds[1][i].dtype, seeds[1][i].shape, values[i].size(),
                                            job_.abi[i]));
      in.back()->upload(values[i]);
    }
    Buffers out = fresh_outputs();
    if (!call("mixed", in, out)) return false;
    auto got = snapshot(out);
    bool same = true;
    for (size_t i = 0; i < got.size(); ++i) same = same && got[i] == out0[i];
    obs_.mixed_unchanged = same ? 1 : 0;
    return true;
  }

  json modeled_json() const {
    const Emulator& e = Emulator::get();
    json launches = json::array();
    for (const auto& l : e.launches())
      launches.push_back({{"kernel", l.kernel}, {"block_dim", l.block_dim}, {"cycles", l.cycles}});
    return {{"cycles", e.call_cycles()},
            {"ms", e.call_ms()},
            {"clock_ghz", npu::kClockGHz},
            {"launch_us", npu::kLaunchUs},
            {"launches", launches}};
  }

  void write_record(const std::string& name, const std::vector<Bytes>& out) {
    for (const auto& o : out) records_.append(o);
    records_.end_record(name);
  }

  int load_error(const std::string& what) {
    rep_.emit({{"event", "load_error"}, {"what", what}});
    return 0;
  }

  int result() {
    json e = obs_.event(records_.names());
    e["device_peaks"] = {{"gbps", npu::kHbmGBps}, {"gflops", npu::kCubeFp32Gflops}};
    if (!timed_.is_null()) e["modeled"] = timed_;
    rep_.emit(e);
    return 0;
  }

  const RunnerJob& job_;
  Reporter rep_;
  int rep_fd_;
  evk_forward_fn fn_ = nullptr;
  RecordFile records_;
  std::vector<std::string> out_names_;
  std::string phase_ = "loading";
  Observations obs_;
  json timed_;
};

}  // namespace

int run_ascendc_harness(const RunnerJob& job, int report_fd) {
  Harness h(job, report_fd);
  return h.run();
}

}  // namespace evk::runner::ascendc
