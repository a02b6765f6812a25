/* The host runtime calls a CANN kernel-invocation program uses around ACLRT_LAUNCH_KERNEL, on
 * the emulated device: aclrtMalloc / aclrtFree of device memory, aclrtMemcpy from the host to
 * a buffer the host allocated (tiling data, tables computed from the shapes), and the stream
 * calls, which have nothing to wait for (launches run in order). The host never reads device
 * memory: the task's inputs and outputs are already on the device, and only kernels move
 * them (ACL_MEMCPY_DEVICE_TO_HOST and DEVICE_TO_DEVICE return ACL_ERROR_INVALID_PARAM). */
#ifndef EVOKERNEL_ACL_ACL_H_
#define EVOKERNEL_ACL_ACL_H_
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "evokernel/ascendc_emu.h"

typedef int aclError;
typedef void* aclrtStream;
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_BAD_ALLOC 200000

typedef enum {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY
} aclrtMemMallocPolicy;
typedef enum {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE
} aclrtMemcpyKind;

static inline aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  (void)policy;
  *devPtr = (void*)(uintptr_t)evk_acl_dev_malloc(size);
  return ACL_SUCCESS;
}
static inline aclError aclrtFree(void* devPtr) {
  evk_acl_dev_free((uint64_t)(uintptr_t)devPtr);
  return ACL_SUCCESS;
}
static inline aclError aclrtMallocHost(void** hostPtr, size_t size) {
  *hostPtr = malloc(size);
  return *hostPtr ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}
static inline aclError aclrtFreeHost(void* hostPtr) {
  free(hostPtr);
  return ACL_SUCCESS;
}
static inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                   aclrtMemcpyKind kind) {
  if (count > destMax) return ACL_ERROR_INVALID_PARAM;
  if (kind == ACL_MEMCPY_HOST_TO_HOST) {
    for (size_t i = 0; i < count; ++i) ((uint8_t*)dst)[i] = ((const uint8_t*)src)[i];
    return ACL_SUCCESS;
  }
  if (kind != ACL_MEMCPY_HOST_TO_DEVICE) return ACL_ERROR_INVALID_PARAM;
  evk_acl_dev_upload((uint64_t)(uintptr_t)dst, src, count);
  return ACL_SUCCESS;
}
static inline aclError aclrtSynchronizeStream(aclrtStream stream) {
  (void)stream;
  return ACL_SUCCESS;
}
static inline aclError aclrtCreateStream(aclrtStream* stream) {
  *stream = (aclrtStream)0;
  return ACL_SUCCESS;
}
static inline aclError aclrtDestroyStream(aclrtStream stream) {
  (void)stream;
  return ACL_SUCCESS;
}

#endif /* EVOKERNEL_ACL_ACL_H_ */
