// Small RAII and error helpers over the CUDA runtime API for evk-runner-cuda: every call is
// checked and a failure becomes an Error naming the call and CUDA's own words for the error.
#pragma once
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "core/error.h"

namespace evk::runner::cuda {

// "cudaErrorIllegalAddress: an illegal memory access was encountered"
std::string describe(cudaError_t e);

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + " failed: " + describe(e));
}

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }  // errors on teardown have no one to tell
};
using DevicePtr = std::unique_ptr<void, DeviceFree>;

// At least one byte, so that empty tensors still get a distinct, valid pointer.
inline DevicePtr device_alloc(size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
  return DevicePtr(p);
}

struct EventDestroy {
  void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
};
using Event = std::unique_ptr<CUevent_st, EventDestroy>;

inline Event make_event() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreate(&e), "cudaEventCreate");
  return Event(e);
}

// Milliseconds between two recorded events (both must have completed).
inline double elapsed_ms(const Event& a, const Event& b) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, a.get(), b.get()), "cudaEventElapsedTime");
  return ms;
}

}  // namespace evk::runner::cuda
