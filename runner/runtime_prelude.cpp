#include "runtime_prelude.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "core/error.h"

namespace evk::runner {
namespace {

// Access rights newer than the kernel headers this may be built against (Debian 12 ships
// 6.1 headers, Landlock ABI 2); the values are fixed by the kernel's ABI.
constexpr uint64_t kTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1ull << 15;  // ABI 5

uint64_t handled_rights(int abi) {
  uint64_t r = (1ull << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) r |= 1ull << 13;  // refer
  if (abi >= 3) r |= kTruncate;
  if (abi >= 5) r |= kIoctlDev;
  return r;
}

std::vector<std::string> split_paths(const char* v) {
  std::vector<std::string> out;
  if (!v) return out;
  std::istringstream in(v);
  for (std::string p; std::getline(in, p, ':');)
    if (!p.empty()) out.push_back(p);
  return out;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The rights Landlock accepts on a file that is not a folder.
constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                 LANDLOCK_ACCESS_FS_READ_FILE | kTruncate | kIoctlDev;

void add_rule(int ruleset, const std::string& path, uint64_t rights) {
  Fd dir{::open(path.c_str(), O_PATH | O_CLOEXEC)};
  if (dir.fd < 0) throw_errno("the sandbox cannot open " + path);
  struct stat st{};
  if (::fstat(dir.fd, &st) != 0) throw_errno("the sandbox cannot stat " + path);
  if (!S_ISDIR(st.st_mode)) rights &= kFileRights;
  landlock_path_beneath_attr attr{};
  attr.allowed_access = rights;
  attr.parent_fd = dir.fd;
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0)
    throw_errno("landlock_add_rule(" + path + ")");
}

}  // namespace

FilePolicy file_policy_from_env() {
  return {split_paths(std::getenv("EVK_RUNNER_FS_READ")),
          split_paths(std::getenv("EVK_RUNNER_FS_WRITE"))};
}

FilePolicy default_file_policy(const std::string& library) {
  FilePolicy p;
  for (const char* d : {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/dev", "/proc",
                        "/sys"})
    if (::access(d, F_OK) == 0) p.read_only.push_back(d);
  p.read_only.push_back(library);
  return p;
}

int landlock_abi() {
  long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : static_cast<int>(v);
}

std::string prepare_runtimes() {
  const char* want = std::getenv("EVK_RUNNER_OPENCL");
  if (!want || std::string(want) != "1") return "";
  // The candidate library links libOpenCL, so this finds the copy already loaded.
  void* cl = ::dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cl)
    return std::string("cannot load libOpenCL.so.1 (install ocl-icd-libopencl1): ") + ::dlerror();
  auto get_platforms =
      reinterpret_cast<decltype(&clGetPlatformIDs)>(::dlsym(cl, "clGetPlatformIDs"));
  auto get_devices = reinterpret_cast<decltype(&clGetDeviceIDs)>(::dlsym(cl, "clGetDeviceIDs"));
  if (!get_platforms || !get_devices) return "libOpenCL.so.1 lacks clGetPlatformIDs/clGetDeviceIDs";
  // Discovery reads the ICD files and the CPU topology and starts PoCL's worker threads; after
  // this, the candidate's own clGetPlatformIDs/clGetDeviceIDs calls are answered from memory.
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (get_platforms(8, platforms, &np) != CL_SUCCESS || np == 0)
    return "no OpenCL platform found (install pocl-opencl-icd; `clinfo -l` must list a device)";
  cl_uint total = 0;
  for (cl_uint i = 0; i < np && i < 8; ++i) {
    cl_uint nd = 0;
    if (get_devices(platforms[i], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) == CL_SUCCESS) total += nd;
  }
  if (total == 0) return "the OpenCL platforms list no device (`clinfo -l` shows what is found)";
  return "";
}

void restrict_files(const FilePolicy& p) {
  int abi = landlock_abi();
  if (abi < 1)
    throw Error(
        "this kernel has no Landlock (needed to confine file access of the OpenCL "
        "runtime): enable it with the boot parameter lsm=...,landlock or use the cpu "
        "backend");
  uint64_t all = handled_rights(abi);
  // The ruleset attribute as of ABI 6 (newer than the headers): with scoping, signals to
  // processes outside the domain and abstract unix sockets are refused as well.
  struct {
    uint64_t handled_access_fs, handled_access_net, scoped;
  } attr{all, 0, abi >= 6 ? 0x3u : 0u};
  size_t attr_size = abi >= 6 ? sizeof attr : sizeof(uint64_t);
  int rs = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (rs < 0) throw_errno("landlock_create_ruleset");
  Fd ruleset{rs};
  const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  for (const auto& d : p.read_only) add_rule(rs, d, read);
  // Nothing may be executed, even from the writable folder.
  for (const auto& d : p.read_write)
    add_rule(rs, d, all & ~static_cast<uint64_t>(LANDLOCK_ACCESS_FS_EXECUTE));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw_errno("prctl(NO_NEW_PRIVS)");
  if (::syscall(SYS_landlock_restrict_self, rs, 0) != 0) throw_errno("landlock_restrict_self");
}

}  // namespace evk::runner
