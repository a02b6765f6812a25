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

#include "../harness_base.h"
#include "../sandbox.h"
#include "core/error.h"
#include "device.h"
#include "device_peaks.h"

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

// Tensors in device memory; CUDA events around each call; the device's peaks measured before
// the sandbox.
class Harness : public HarnessBase {
 public:
  using HarnessBase::HarnessBase;

 private:
  // The context, the L2 flush buffer and the device's peaks come first: all of it is the
  // runner's own code and may open device files, which the filter forbids afterwards.
  std::string prepare() override {
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
    return "";
  }

  // The filter only (nvcc's kernel registration in the library's constructors is candidate
  // code too): the driver's ioctls on the device nodes the jail binds in are allowed.
  std::string sandbox() override {
    SandboxOptions sandbox;
    sandbox.device = true;
    install_sandbox(rep_fd_, sandbox);
    return "";
  }

  // Registering the library's kernels must not have broken the context.
  void after_load() override { check(cudaDeviceSynchronize(), "synchronising after loading the library"); }

  void load(int g, int s) override {
    const RunnerSet& set = input_set(s);
    Group& grp = groups_[g];
    if (!same_layout(grp.bufs, set.inputs)) {
      grp.bufs.clear();
      for (const auto& t : set.inputs) grp.bufs.push_back(std::make_unique<Buffer>(t.dtype, t.shape, t.nbytes));
    }
    for (size_t i = 0; i < set.inputs.size(); ++i) grp.bufs[i]->upload(source(set.inputs[i]));
    grp.set = s;
  }

  // The device outputs of a slot for a set's shapes (kept while the shapes stay).
  std::vector<std::unique_ptr<Buffer>>& slot_buffers(int slot, const RunnerSet& set) {
    auto& b = slot_bufs_[slot];
    if (!same_layout(b, set.outputs)) {
      b.clear();
      for (const auto& o : set.outputs) b.push_back(std::make_unique<Buffer>(o.dtype, o.shape, o.nbytes()));
    }
    return b;
  }

  // Per call: the L2 flushed, CUDA events around evk_forward on the default stream (a claim),
  // the whole device synchronised. Outputs are poisoned on the device from the parent's poison
  // before the first call and copied to the host slots after the last.
  void run_calls(const nlohmann::json& calls) override {
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
        rc = call_forward(fn_, cs[k].in, cs[k].out, exception);
        check(cudaEventRecord(stop_.get(), 0), "cudaEventRecord");
      } catch (const Error& e) {  // a CUDA call around the kernel's failed
        exception = e.what();
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
      if (std::string m = mutation_text(input_name(i), now.data(), source(set.inputs[i]), now.size(),
                                        grp.bufs[i]->dtype);
          !m.empty())
        return m;
    }
    return "";
  }

  DevicePtr flush_;
  size_t flush_bytes_ = 0;
  Event start_, stop_;
  std::map<int, Group> groups_;
  std::map<int, std::vector<std::unique_ptr<Buffer>>> slot_bufs_;
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
