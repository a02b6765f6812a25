#include "cuda_harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <cstring>
#include <new>
#include <nlohmann/json.hpp>

#include "../channels.h"
#include "../sandbox.h"
#include "device.h"
#include "device_peaks.h"

extern "C" {
typedef struct {
  void* data;
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;
} evk_tensor;
typedef int (*evk_forward_fn)(const evk_tensor*, int32_t, evk_tensor*, int32_t);
}

namespace evk::runner::cuda {

std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

namespace {

using nlohmann::json;
using Bytes = std::vector<uint8_t>;

// One tensor in device memory with the host shape/stride arrays the ABI points at.
struct Buffer {
  DType dtype = DType::F32;
  std::vector<int64_t> shape, strides;
  size_t nbytes = 0;
  DevicePtr data;
  Buffer(DType t, const std::vector<int64_t>& s, size_t n)
      : dtype(t), shape(s), nbytes(n), data(device_alloc(n)) {
    strides.assign(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
  }
  evk_tensor view() const {
    return {data.get(), static_cast<int32_t>(dtype), static_cast<int32_t>(shape.size()),
            shape.data(), strides.data()};
  }
  void upload(const uint8_t* b) {
    check(cudaMemcpy(data.get(), b, nbytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void download(uint8_t* b) const {
    check(cudaMemcpy(b, data.get(), nbytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
};

// A group's device input buffers and the set they hold (addresses kept while shapes match).
struct Group {
  int set = -1;
  std::vector<std::unique_ptr<Buffer>> bufs;
};

// What to tell the kernel's author about a CUDA error seen right after a call.
std::string call_error_text(cudaError_t e) {
  std::string hint;
  switch (e) {
    case cudaErrorIllegalAddress:
      hint =
          " (an out-of-bounds index, a missing `if (i < n)` guard, or a host pointer passed "
          "to a kernel)";
      break;
    case cudaErrorInvalidConfiguration:
      hint =
          " (grid or block too large: at most 1024 threads per block, and dynamic shared "
          "memory within the device limit)";
      break;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      hint = " (the library was built for another GPU: set EVK_CUDA_ARCH to this GPU's sm_XY)";
      break;
    case cudaErrorLaunchTimeout:
      hint = " (a kernel ran too long)";
      break;
    case cudaErrorMisalignedAddress:
      hint = " (a vector load or store through a pointer not aligned to its size)";
      break;
    default:
      break;
  }
  return "a CUDA error: " + describe(e) + hint;
}

class Harness {
 public:
  Harness(const RunnerJob& job, int report_fd)
      : job_(job), events_(report_fd), ctl_(job.control_fd), cmds_(job.control_fd), rep_fd_(report_fd) {}

  int run() {
    events_.emit({{"event", "started"}});
    Mapping in(job_.inputs_fd, job_.inputs_bytes, false);
    Mapping out(job_.outputs_fd, job_.slot_bytes * static_cast<size_t>(job_.slots), true);
    in_ = &in;
    out_ = &out;
    // The context, the L2 flush buffer and the device's peaks come first: all of it is the
    // runner's own code and may open device files, which the filter forbids afterwards.
    check(cudaFree(nullptr), "creating the CUDA context");
    int dev = 0, l2 = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "cudaDeviceGetAttribute");
    // Four times the L2: writing it evicts every line a previous call left behind, and the
    // copy-bandwidth measurement over its halves streams from DRAM.
    flush_bytes_ = std::max<size_t>(4 * static_cast<size_t>(l2), 64u << 20);
    flush_ = device_alloc(flush_bytes_);
    events_.emit({{"event", "device_peaks"}, {"gbps", copy_gbps(flush_.get(), flush_bytes_ / 2)},
                  {"gflops", fma_gflops()}});
    start_ = make_event();
    stop_ = make_event();

    // The filter goes on before the library is loaded: its global constructors (nvcc's kernel
    // registration among them) are candidate code too (runner/sandbox.h).
    SandboxOptions sandbox;
    sandbox.device = true;  // the driver's ioctls on the device nodes the jail binds in
    install_sandbox(rep_fd_, sandbox);
    void* lib = ::dlopen(job_.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return load_error(std::string("cannot load the library: ") + ::dlerror());
    fn_ = reinterpret_cast<evk_forward_fn>(::dlsym(lib, "evk_forward"));
    if (!fn_)
      return load_error(
          "the library does not export evk_forward: define it with extern \"C\" "
          "and include evokernel/kernel_abi.h");
    // Registering the library's kernels must not have broken the context.
    check(cudaDeviceSynchronize(), "synchronising after loading the library");
    ctl_.emit({{"ready", true}});
    while (auto cmd = cmds_.next()) {
      std::string op = cmd->value("op", "");
      if (op == "load") {
        load(cmd->at("group").get<int>(), cmd->at("set").get<int>());
        ctl_.emit({{"ok", true}});
      } else if (op == "run") {
        run_calls(cmd->at("calls"));
      } else if (op == "quit") {
        ctl_.emit({{"result", true}, {"calls", calls_}});
        return 0;
      } else {
        throw Error("unknown command " + op);
      }
    }
    return 0;
  }

 private:
  const uint8_t* source(const RunnerTensor& t) const {
    if (t.offset + t.nbytes > in_->size()) throw Error("an input lies outside the inputs region");
    return in_->data() + t.offset;
  }

  void load(int g, int s) {
    if (s < 0 || s >= static_cast<int>(job_.sets.size())) throw Error("no input set " + std::to_string(s));
    const RunnerSet& set = job_.sets[static_cast<size_t>(s)];
    Group& grp = groups_[g];
    bool same = grp.bufs.size() == set.inputs.size();
    for (size_t i = 0; same && i < set.inputs.size(); ++i)
      same = grp.bufs[i]->shape == set.inputs[i].shape && grp.bufs[i]->dtype == set.inputs[i].dtype;
    if (!same) {
      grp.bufs.clear();
      for (const auto& t : set.inputs) grp.bufs.push_back(std::make_unique<Buffer>(t.dtype, t.shape, t.nbytes));
    }
    for (size_t i = 0; i < set.inputs.size(); ++i) grp.bufs[i]->upload(source(set.inputs[i]));
    grp.set = s;
  }

  // The device outputs of a slot for a set's shapes (kept while the shapes stay).
  std::vector<std::unique_ptr<Buffer>>& slot_buffers(int slot, const RunnerSet& set) {
    auto& b = slot_bufs_[slot];
    bool same = b.size() == set.outputs.size();
    for (size_t i = 0; same && i < b.size(); ++i) same = b[i]->shape == set.outputs[i].shape && b[i]->dtype == set.outputs[i].dtype;
    if (!same) {
      b.clear();
      for (const auto& o : set.outputs) b.push_back(std::make_unique<Buffer>(o.dtype, o.shape, o.nbytes()));
    }
    return b;
  }

  // Per call: the L2 flushed, CUDA events around evk_forward on the default stream (a claim),
  // the whole device synchronised. Outputs are poisoned on the device from the parent's poison
  // before the first call and copied to the host slots after the last.
  void run_calls(const nlohmann::json& calls) {
    struct Call {
      int group, slot;
      std::vector<evk_tensor> in, out;
    };
    std::vector<Call> cs;
    for (const auto& c : calls) {
      int g = c.at(0).get<int>(), slot = c.at(1).get<int>();
      auto it = groups_.find(g);
      if (it == groups_.end() || it->second.set < 0) throw Error("group " + std::to_string(g) + " holds no set");
      if (slot < 0 || slot >= job_.slots) throw Error("no slot " + std::to_string(slot));
      const RunnerSet& set = job_.sets[static_cast<size_t>(it->second.set)];
      auto& ob = slot_buffers(slot, set);
      auto off = output_offsets(set);
      uint8_t* host = out_->data() + static_cast<size_t>(slot) * job_.slot_bytes;
      for (size_t i = 0; i < ob.size(); ++i) ob[i]->upload(host + off[i]);  // the parent's poison
      Call k{g, slot, {}, {}};
      for (auto& b : it->second.bufs) k.in.push_back(b->view());
      for (auto& b : ob) k.out.push_back(b->view());
      cs.push_back(std::move(k));
    }
    std::vector<double> ms;
    int rc = 0, failed = -1;
    std::string exception;
    ctl_.emit({{"go", true}});
    for (size_t k = 0; k < cs.size(); ++k) {
      try {
        check(cudaMemsetAsync(flush_.get(), static_cast<int>(k & 0xff), flush_bytes_, 0), "flushing the L2 cache");
        check(cudaEventRecord(start_.get(), 0), "cudaEventRecord");
        rc = fn_(cs[k].in.data(), static_cast<int32_t>(cs[k].in.size()), cs[k].out.data(),
                 static_cast<int32_t>(cs[k].out.size()));
        check(cudaEventRecord(stop_.get(), 0), "cudaEventRecord");
      } catch (const std::bad_alloc&) {
        exception = "std::bad_alloc (out of memory)";
      } catch (const std::exception& e) {
        exception = e.what();
      } catch (...) {
        exception = "an exception that is not a std::exception";
      }
      cudaError_t launch = cudaGetLastError();
      cudaError_t done = cudaDeviceSynchronize();
      if (exception.empty() && (launch != cudaSuccess || done != cudaSuccess))
        exception = call_error_text(launch != cudaSuccess ? launch : done);
      ++calls_;
      if (rc != 0 || !exception.empty()) {
        failed = static_cast<int>(k);
        break;
      }
      ms.push_back(elapsed_ms(start_, stop_));
    }
    ctl_.emit({{"done", true}, {"ms", ms}, {"rc", rc}, {"exception", exception}, {"failed_call", failed}});
    std::string mutated;
    if (failed < 0) {
      for (const auto& c : cs) {
        const RunnerSet& set = job_.sets[static_cast<size_t>(groups_.at(c.group).set)];
        auto off = output_offsets(set);
        auto& ob = slot_bufs_.at(c.slot);
        uint8_t* host = out_->data() + static_cast<size_t>(c.slot) * job_.slot_bytes;
        for (size_t i = 0; i < ob.size(); ++i) ob[i]->download(host + off[i]);
        if (mutated.empty()) mutated = mutation(c.group);
      }
    }
    ctl_.emit({{"checked", true}, {"mutated", mutated}});
  }

  // "in.0 at element 12" when a group's device buffers no longer hold the set loaded.
  std::string mutation(int g) const {
    const Group& grp = groups_.at(g);
    const RunnerSet& set = job_.sets[static_cast<size_t>(grp.set)];
    for (size_t i = 0; i < grp.bufs.size(); ++i) {
      Bytes now(grp.bufs[i]->nbytes);
      grp.bufs[i]->download(now.data());
      const uint8_t* was = source(set.inputs[i]);
      if (std::memcmp(now.data(), was, now.size()) == 0) continue;
      size_t k = 0;
      while (now[k] == was[k]) ++k;
      std::string name = i < job_.abi.size() ? job_.abi[i] : "input " + std::to_string(i);
      return fmt::format("{} at element {}", name, k / std::max<size_t>(1, dtype_size(grp.bufs[i]->dtype)));
    }
    return "";
  }

  int load_error(const std::string& what) {
    events_.emit({{"event", "load_error"}, {"what", what}});
    return 0;
  }

  const RunnerJob& job_;
  Reporter events_, ctl_;
  CommandReader cmds_;
  int rep_fd_;
  Mapping* in_ = nullptr;
  Mapping* out_ = nullptr;
  evk_forward_fn fn_ = nullptr;
  DevicePtr flush_;
  size_t flush_bytes_ = 0;
  Event start_, stop_;
  std::map<int, Group> groups_;
  std::map<int, std::vector<std::unique_ptr<Buffer>>> slot_bufs_;
  int64_t calls_ = 0;
};

}  // namespace

double copy_gbps(void* scratch, size_t bytes) {
  auto* base = static_cast<char*>(scratch);
  Event a = make_event(), b = make_event();
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    check(cudaEventRecord(a.get(), 0), "cudaEventRecord");
    check(cudaMemcpyAsync(base + bytes, base, bytes, cudaMemcpyDeviceToDevice, 0),
          "cudaMemcpyAsync");
    check(cudaEventRecord(b.get(), 0), "cudaEventRecord");
    check(cudaEventSynchronize(b.get()), "cudaEventSynchronize");
    double ms = elapsed_ms(a, b);
    if (ms > 0) best = std::max(best, 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);
  }
  return best;
}

nlohmann::json measure_device_peaks() {
  int dev = 0, l2 = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "cudaDeviceGetAttribute");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  size_t half = std::max<size_t>(2 * static_cast<size_t>(l2), 32u << 20);
  DevicePtr buf = device_alloc(2 * half);
  return {{"gbps", copy_gbps(buf.get(), half)},
          {"gflops", fma_gflops()},
          {"l2_bytes", l2},
          {"name", prop.name}};
}

int run_cuda_harness(const RunnerJob& job, int report_fd) {
  Harness h(job, report_fd);
  return h.run();
}

}  // namespace evk::runner::cuda
