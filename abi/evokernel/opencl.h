/* evokernel OpenCL helper for candidates of the opencl backend (knowledge/opencl/guide.md).
 *
 *   #include "evokernel/opencl.h"
 *   static const char* kSource = R"evk_cl(
 *     __kernel void relu(__global const float* x, __global float* y, long n) {
 *       long i = get_global_id(0);
 *       if (i < n) y[i] = x[i] < 0.0f ? 0.0f : x[i];
 *     })evk_cl";
 *   extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
 *     evk_cl::Runtime& rt = evk_cl::runtime(kSource);        // built once per process
 *     if (!rt.ok()) return rt.fail();
 *     cl_kernel k = evk_cl::kernel(rt, "relu");
 *     evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);
 *     cl_long n = evk_cl::numel(in[0]);
 *     EVK_CL_CHECK(evk_cl::set_args(k, x, y, n));
 *     EVK_CL_CHECK(evk_cl::launch(rt, k, n, 64));             // global rounded up to 64
 *     return evk_cl::finish(rt, y);                           // results back in out[0]
 *   }
 *
 * The program is built from the one R"evk_cl( ... )evk_cl" string of the file with the fixed
 * options EVK_CL_BUILD_OPTIONS: the verifier builds that same string at its compile gate
 * (errors come back as compile feedback) and the runtime build then comes from PoCL's cache.
 * A program built from any other text cannot be compiled inside the sandbox.
 * Buffers wrap the tensors' host memory (CL_MEM_USE_HOST_PTR: no copy on a CPU device) and are
 * released when they go out of scope; the runtime (context, queue, program, kernels) lives for
 * the process, which is allowed: only results may not be kept across calls.
 *
 * This file is abi/evokernel/opencl.h (evk-clbuild builds with it too); the build copies it
 * into knowledge/opencl/evokernel/ (the test abi_copies fails when the copy differs): edit it
 * here. */
#ifndef EVOKERNEL_OPENCL_H_
#define EVOKERNEL_OPENCL_H_

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>

#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "evokernel/kernel_abi.h"

/* The build options of every program, at the compile gate and at run time alike. */
#define EVK_CL_BUILD_OPTIONS "-cl-std=CL1.2"

/* Returns the OpenCL error code (negative) from evk_forward when `expr` fails. */
#define EVK_CL_CHECK(expr)                                       \
  do {                                                           \
    cl_int evk_cl_err_ = (expr);                                 \
    if (evk_cl_err_ != CL_SUCCESS) return evk_cl::report(evk_cl_err_, #expr); \
  } while (0)

namespace evk_cl {

/* Prints what failed on stderr (shown to you with a failed call) and returns the code. */
inline int report(cl_int err, const char* what) {
  fprintf(stderr, "evk_cl: %s failed with OpenCL error %d\n", what, static_cast<int>(err));
  return err == CL_SUCCESS ? -1 : static_cast<int>(err);
}

struct Runtime {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_int status = CL_SUCCESS;  // the first error met while setting up
  std::string error;           // what failed, with the build log when the build failed
  std::map<std::string, cl_kernel> kernels;
  std::mutex mu;
  bool ok() const { return status == CL_SUCCESS; }
  int fail() const {
    fprintf(stderr, "evk_cl: %s\n", error.c_str());
    return status == CL_SUCCESS ? -1 : static_cast<int>(status);
  }
};

namespace detail {
inline bool step(Runtime& rt, cl_int err, const char* what) {
  if (err == CL_SUCCESS) return true;
  rt.status = err;
  char code[32];  // snprintf, not std::to_string: that would add an exported libstdc++ table
  snprintf(code, sizeof code, "%d", static_cast<int>(err));
  rt.error = std::string(what) + " failed with OpenCL error " + code;
  return false;
}

inline void setup(Runtime& rt, const char* source) {
  cl_uint n = 0;
  if (!step(rt, clGetPlatformIDs(1, &rt.platform, &n), "clGetPlatformIDs")) return;
  if (!step(rt, clGetDeviceIDs(rt.platform, CL_DEVICE_TYPE_ALL, 1, &rt.device, nullptr), "clGetDeviceIDs"))
    return;
  cl_int err = CL_SUCCESS;
  rt.context = clCreateContext(nullptr, 1, &rt.device, nullptr, nullptr, &err);
  if (!step(rt, err, "clCreateContext")) return;
  rt.queue = clCreateCommandQueue(rt.context, rt.device, 0, &err);
  if (!step(rt, err, "clCreateCommandQueue")) return;
  rt.program = clCreateProgramWithSource(rt.context, 1, &source, nullptr, &err);
  if (!step(rt, err, "clCreateProgramWithSource")) return;
  err = clBuildProgram(rt.program, 1, &rt.device, EVK_CL_BUILD_OPTIONS, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t len = 0;
    clGetProgramBuildInfo(rt.program, rt.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    clGetProgramBuildInfo(rt.program, rt.device, CL_PROGRAM_BUILD_LOG, len, &log[0], nullptr);
    while (!log.empty() && log.back() == '\0') log.pop_back();  // the size counts the terminator
    step(rt, err, "clBuildProgram");
    rt.error += ":\n" + log;
  }
}
}  // namespace detail

/* The process-wide runtime with `source` built; the first call sets it up. */
inline Runtime& runtime(const char* source) {
  // A function-local static is initialised once, thread-safely (std::call_once would add an
  // exported libstdc++ symbol to the library).
  static Runtime* rt = [source] {
    Runtime* r = new Runtime;
    detail::setup(*r, source);
    return r;
  }();
  return *rt;
}

/* The kernel `name` of the runtime's program, created once (nullptr when there is none: a
 * launch then fails with CL_INVALID_KERNEL). */
inline cl_kernel kernel(Runtime& rt, const char* name) {
  std::lock_guard<std::mutex> g(rt.mu);
  auto it = rt.kernels.find(name);
  if (it != rt.kernels.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(rt.program, name, &err);
  if (err != CL_SUCCESS) {
    report(err, (std::string("clCreateKernel(\"") + name + "\")").c_str());
    return nullptr;
  }
  rt.kernels[name] = k;
  return k;
}

inline int64_t numel(const evk_tensor& t) { return evk_numel(&t); }
/* Size of dimension d; negative d counts from the end as in PyTorch. */
inline int64_t dim(const evk_tensor& t, int d) { return t.shape[d < 0 ? d + t.ndim : d]; }
/* Product of dimensions [first, last) (last = -1 means up to the end). */
inline int64_t numel_range(const evk_tensor& t, int first, int last = -1) {
  if (last < 0) last = t.ndim;
  int64_t n = 1;
  for (int i = first; i < last; ++i) n *= t.shape[i];
  return n;
}
inline size_t nbytes(const evk_tensor& t) {
  static const size_t sizes[] = {4, 8, 4, 8, 1, 1, 2};
  return static_cast<size_t>(numel(t)) * (t.dtype >= 0 && t.dtype < 7 ? sizes[t.dtype] : 1);
}

/* A buffer over a tensor's host memory, released on scope exit. */
class Buffer {
 public:
  Buffer(Runtime& rt, const evk_tensor& t, cl_mem_flags flags) : rt_(rt), host_(t.data), bytes_(nbytes(t)) {
    // A 0-byte buffer is invalid in OpenCL; a 0-element tensor still gets one element.
    size_t size = bytes_ ? bytes_ : 4;
    mem = clCreateBuffer(rt.context, flags | CL_MEM_USE_HOST_PTR, size, t.data, &status);
  }
  ~Buffer() {
    if (mem) clReleaseMemObject(mem);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  /* Blocks until the queue is done, then makes the results visible in host memory. */
  cl_int to_host() {
    if (status != CL_SUCCESS) return status;
    cl_int err = clFinish(rt_.queue);
    if (err != CL_SUCCESS || bytes_ == 0) return err;
    void* p = clEnqueueMapBuffer(rt_.queue, mem, CL_TRUE, CL_MAP_READ, 0, bytes_, 0, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return err;
    err = clEnqueueUnmapMemObject(rt_.queue, mem, p, 0, nullptr, nullptr);
    return err == CL_SUCCESS ? clFinish(rt_.queue) : err;
  }
  cl_mem mem = nullptr;
  cl_int status = CL_SUCCESS;

 private:
  Runtime& rt_;
  void* host_;
  size_t bytes_;
};

/* Allocates a device-only scratch buffer (e.g. partial sums), released on scope exit. */
class Scratch {
 public:
  Scratch(Runtime& rt, size_t bytes) { mem = clCreateBuffer(rt.context, CL_MEM_READ_WRITE, bytes ? bytes : 4, nullptr, &status); }
  ~Scratch() {
    if (mem) clReleaseMemObject(mem);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  cl_mem mem = nullptr;
  cl_int status = CL_SUCCESS;
};

/* __local memory of `bytes` for a kernel argument. */
struct Local {
  size_t bytes;
};

namespace detail {
inline cl_int arg(cl_kernel k, cl_uint i, const Buffer& b) {
  return b.status != CL_SUCCESS ? b.status : clSetKernelArg(k, i, sizeof(cl_mem), &b.mem);
}
inline cl_int arg(cl_kernel k, cl_uint i, const Scratch& b) {
  return b.status != CL_SUCCESS ? b.status : clSetKernelArg(k, i, sizeof(cl_mem), &b.mem);
}
inline cl_int arg(cl_kernel k, cl_uint i, const Local& l) { return clSetKernelArg(k, i, l.bytes, nullptr); }
template <class T>
inline cl_int arg(cl_kernel k, cl_uint i, const T& v) {
  static_assert(std::is_arithmetic<T>::value, "kernel arguments: evk_cl::Buffer, Scratch, Local or a number");
  return clSetKernelArg(k, i, sizeof(T), &v);
}
}  // namespace detail

/* Sets arguments 0, 1, 2, ... in order. The C++ type of a number decides its size: pass
 * cl_long for `long`, cl_int for `int`, cl_float for `float` in the kernel signature. */
template <class... A>
inline cl_int set_args(cl_kernel k, const A&... a) {
  if (!k) return CL_INVALID_KERNEL;
  cl_int err = CL_SUCCESS;
  cl_uint i = 0;
  ((err = err == CL_SUCCESS ? detail::arg(k, i++, a) : err), ...);
  return err;
}

inline size_t round_up(int64_t n, size_t m) { return (static_cast<size_t>(n > 0 ? n : 1) + m - 1) / m * m; }

/* 1-D launch: `global` work-items rounded up to a multiple of `local` (kernels check bounds). */
inline cl_int launch(Runtime& rt, cl_kernel k, int64_t global, size_t local) {
  if (!k) return CL_INVALID_KERNEL;
  size_t g = round_up(global, local);
  return clEnqueueNDRangeKernel(rt.queue, k, 1, nullptr, &g, &local, 0, nullptr, nullptr);
}

/* 2-D launch: dimension 0 is the fastest-varying (columns), each rounded up to its local size. */
inline cl_int launch2d(Runtime& rt, cl_kernel k, int64_t global0, int64_t global1, size_t local0, size_t local1) {
  if (!k) return CL_INVALID_KERNEL;
  size_t g[2] = {round_up(global0, local0), round_up(global1, local1)};
  size_t l[2] = {local0, local1};
  return clEnqueueNDRangeKernel(rt.queue, k, 2, nullptr, g, l, 0, nullptr, nullptr);
}

/* Waits for every launch and makes `outs` visible in host memory; 0 on success, else the
 * OpenCL error code. */
template <class... B>
inline int finish(Runtime& rt, B&... outs) {
  cl_int err = clFinish(rt.queue);
  if (err != CL_SUCCESS) return report(err, "clFinish (a kernel failed)");
  ((err = err == CL_SUCCESS ? outs.to_host() : err), ...);
  return err == CL_SUCCESS ? 0 : report(err, "reading results back");
}

}  // namespace evk_cl

#endif /* EVOKERNEL_OPENCL_H_ */
