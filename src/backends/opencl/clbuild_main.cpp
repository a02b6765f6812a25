// evk-clbuild: the opencl backend's compile-gate helper, run by the verifier as a child
// process with time and memory limits (a kernel that makes the OpenCL C compiler loop or
// explode costs one failed compile).
//   evk-clbuild FILE.cl   build FILE with the candidates' own setup code (evokernel/opencl.h,
//                         same options, same device), so PoCL's cache (POCL_CACHE_DIR) then
//                         holds what the sandboxed runtime build looks up; also compile every
//                         kernel's generic work-group function (POCL_WORK_GROUP_SPECIALIZATION=0),
//                         which is what PoCL would otherwise link with /usr/bin/ld at the
//                         first launch, a process the sandbox forbids.
//                         Exit 0: built; 1: the build log is on stdout; 2: no OpenCL device.
//   evk-clbuild --probe   exit 0 and print the device when OpenCL kernels can run sandboxed
//                         here (a device, and Landlock to confine PoCL's file access), else
//                         exit 2 with what is missing and how to fix it.
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "evokernel/opencl.h"

namespace {

std::string device_name(cl_device_id d) {
  char name[256] = {0};
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  return name;
}

int probe() {
  cl_platform_id p = nullptr;
  cl_uint n = 0;
  cl_device_id d = nullptr;
  if (clGetPlatformIDs(1, &p, &n) != CL_SUCCESS || n == 0 ||
      clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr) != CL_SUCCESS) {
    std::cout << "no OpenCL platform with a device: install pocl-opencl-icd (scripts/setup); "
                 "`clinfo -l` must list a device\n";
    return 2;
  }
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) {
    std::cout << "the kernel has no Landlock, which the runner needs to confine PoCL's file "
                 "access: boot with lsm=...,landlock (Linux >= 5.13) or use the cpu backend\n";
    return 2;
  }
  std::cout << device_name(d) << "\n";
  return 0;
}

int build(const char* file) {
  std::ifstream in(file);
  if (!in) {
    std::cout << "cannot read " << file << "\n";
    return 3;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string source = ss.str();
  evk_cl::Runtime& rt = evk_cl::runtime(source.c_str());
  if (!rt.ok()) {
    std::cout << rt.error << "\n";
    return rt.program ? 1 : 2;
  }
  size_t nk = 0;  // CL_PROGRAM_NUM_KERNELS is a size_t
  clGetProgramInfo(rt.program, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, nullptr);
  if (nk == 0) {
    std::cout << "the OpenCL program defines no __kernel function\n";
    return 1;
  }
  // Asking for the binary makes PoCL compile and link every kernel's generic work-group
  // function into the cache.
  size_t size = 0;
  cl_int err = clGetProgramInfo(rt.program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::vector<unsigned char> bin(size);
  unsigned char* ptr = bin.data();
  if (err == CL_SUCCESS)
    err = clGetProgramInfo(rt.program, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
  if (err != CL_SUCCESS) {
    std::cout << "compiling the kernels' work-group functions failed with OpenCL error " << err
              << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string a = argc > 1 ? argv[1] : "";
  if (a == "--probe") return probe();
  if (argc == 2 && !a.empty() && a[0] != '-') return build(argv[1]);
  std::cerr << "usage: evk-clbuild FILE.cl | --probe\n";
  return 3;
}
