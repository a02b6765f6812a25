// The CUDA backend's pieces that need no GPU: the source rules, the symbol rules on nm output,
// the ptxas report, the arch setting, the compile gate on real nvcc output, and the device
// probe's answer (whatever this machine has, it must be explained).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_source_rules.h"
#include "backends/cuda/cuda_symbol_rules.h"
#include "backends/cuda/ptxas_report.h"
#include "core/error.h"
#include "core/process.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

const char* kClean = R"(#include "evokernel/kernel_abi.h"
#include <cuda_fp16.h>
#include <cstdint>
namespace {
__global__ void scale(const float* x, float* y, int64_t n, float at) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * at;  // `at` as a variable is fine; "cublas" in a comment too
}
}
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int64_t n = evk_numel(&in[0]);
  float* tmp = nullptr;
  cudaMalloc(&tmp, n * sizeof(float));
  cudaMemcpyAsync(tmp, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice, 0);
  scale<<<(n + 255) / 256, 256>>>(tmp, static_cast<float*>(out[0].data), n, 2.0f);
  cudaFree(tmp);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
)";

std::string with_body(const std::string& line) {
  return std::string(
             "#include \"evokernel/kernel_abi.h\"\nextern \"C\" int evk_forward(const "
             "evk_tensor* in, int32_t, evk_tensor* out, int32_t) {\n") +
         line + "\n  return 0;\n}\n";
}

// The rules judge nvcc's preprocessed output: without the toolkit there is nothing to judge
// (and the compile reports the missing nvcc).
#define SKIP_WITHOUT_NVCC()                                                          \
  do {                                                                               \
    if (!CudaBackend::nvcc_path()) GTEST_SKIP() << "nvcc is not installed here";     \
  } while (0)

TEST(CudaSourceRules, AcceptsAPlainKernel) {
  SKIP_WITHOUT_NVCC();
  auto bad = check_cuda_source(kClean);
  EXPECT_FALSE(bad) << *bad;
}

TEST(CudaSourceRules, RefusesVendorLibrariesStreamsEventsAndHostCopies) {
  SKIP_WITHOUT_NVCC();
  struct C {
    std::string line, needle;
  } cases[] = {
      {"cublasSgemm_v2(0);", "cublasSgemm_v2"},
      {"cudnnCreate(0);", "cudnnCreate"},
      {"cudaStream_t s; cudaStreamCreate(&s);", "cudaStreamCreate"},
      {"cudaStream_t s = cudaStreamPerThread;", "cudaStreamPerThread"},
      {"cudaEvent_t e; cudaEventCreate(&e);", "the harness owns the clock"},
      {"cudaGraph_t g;", "cudaGraph_t"},
      {"cudaLaunchHostFunc(0, 0, 0);", "cudaLaunchHostFunc"},
      {"float* p; cudaMallocManaged(&p, 4);", "cudaMallocManaged"},
      {"float* p; cudaHostAlloc(&p, 4, 0);", "cudaHostAlloc"},
      {"float h; cudaMemcpy(&h, in[0].data, 4, cudaMemcpyDeviceToHost);", "cudaMemcpyDeviceToHost"},
      {"float h; cudaMemcpy(&h, in[0].data, 4, (cudaMemcpyKind)2);", "must name its direction"},
      {"auto f = cudaMemcpy; (void)f;", "called directly"},
      {"cuMemcpyDtoH_v2(0, 0, 0);", "driver API"},
      {"cudaDeviceReset();", "cudaDeviceReset"},
      {"thrust::device_vector<float> v;", "thrust"},
      {"long t = clock64();", "clock64"},
      {"asm volatile(\"\");", "inline assembly"},
      {"__asm__ volatile(\"\");", "inline assembly"},
  };
  for (const auto& c : cases) {
    auto bad = check_cuda_source(with_body(c.line));
    ASSERT_TRUE(bad) << c.line;
    EXPECT_NE(bad->find(c.needle), std::string::npos) << c.line << " -> " << *bad;
    EXPECT_NE(bad->find("line 3"), std::string::npos) << *bad;
  }
}

TEST(CudaSourceRules, IncludeWhitelistNamesTheHeader) {
  SKIP_WITHOUT_NVCC();
  for (const char* h : {"cublas_v2.h", "cudnn.h", "cub/cub.cuh", "thrust/sort.h", "cuda.h",
                        "torch/extension.h", "thread", "nvrtc.h"}) {
    auto bad = check_cuda_source(std::string("#include <") + h + ">\n" + kClean);
    ASSERT_TRUE(bad) << h;
    EXPECT_NE(bad->find(h), std::string::npos) << *bad;
  }
  for (const char* h : {"cuda_runtime.h", "cuda_bf16.h", "mma.h", "cooperative_groups.h"}) {
    auto bad = check_cuda_source(std::string("#include <") + h + ">\n" + kClean);
    EXPECT_FALSE(bad) << h << ": " << *bad;
  }
}

TEST(CudaSourceRules, NamesAndMacrosAreNotRules) {
  SKIP_WITHOUT_NVCC();
  // Locals named like C library functions, token pasting and line continuations in honest
  // macros: the rules judge the preprocessed source, so none of these is a construct.
  auto bad = check_cuda_source(with_body(
      "int write = 1, signal = 2, exit = 3, close = 4, open = 5;\n"
      "#define CAT(a, b) a##b\n"
      "#define SUM(x, \\\n y) ((x) + (y))\n"
      "int CAT(to, tal) = SUM(write + signal, exit + close + open);\n"
      "long big = 1'000'000; (void)total; (void)big;"));
  EXPECT_FALSE(bad) << *bad;
}

TEST(CudaSourceRules, SpellingTricksAndDeviceOnlyCodeAreSeen) {
  SKIP_WITHOUT_NVCC();
  struct C {
    std::string src, needle;
  } cases[] = {
      {std::string("%:include <cublas_v2.h>\n") + kClean, "cublas_v2.h"},
      {std::string("#\\\ninclude <thrust/sort.h>\n") + kClean, "thrust/sort.h"},
      {std::string(kClean) + "__global__ void k(int* p) {\n#if defined(__CUDA_ARCH__)\n"
                             "  asm volatile(\"exit;\");\n#endif\n  *p = 1;\n}\n",
       "inline assembly"},
      {std::string(kClean) + "#define CAT(a, b) a##b\nvoid f() { CAT(cuda, DeviceReset)(); }\n",
       "cudaDeviceReset"},
      {std::string(kClean) + "__managed__ float g;\n", "__managed__"},
      {std::string(kClean) + "__attribute__((constructor)) void early() {}\n", "constructor"},
  };
  for (const auto& c : cases) {
    auto bad = check_cuda_source(c.src);
    ASSERT_TRUE(bad) << c.src;
    EXPECT_NE(bad->find(c.needle), std::string::npos) << c.src << " -> " << *bad;
  }
}

TEST(CudaSourceRules, HostToDeviceAndDeviceToDeviceCopiesAreAllowed) {
  SKIP_WITHOUT_NVCC();
  EXPECT_FALSE(check_cuda_source(
      with_body("cudaMemcpy(out[0].data, in[0].data, 4, cudaMemcpyDeviceToDevice);\n"
                "float h = 1; cudaMemcpyAsync(out[0].data, &h, 4, cudaMemcpyHostToDevice, 0);")));
}

SymbolTables tables(const std::string& exported, const std::string& imported,
                    const std::string& defined = "") {
  return {exported, imported, defined.empty() ? exported : defined};
}

// What nm prints for the library nvcc builds from a plain kernel (trimmed).
const char* kImports =
    "                 U _Unwind_Resume@GCC_3.0\n"
    "                 U __cudaLaunchKernel@libcudart.so.13\n"
    "                 U __cudaRegisterFatBinary@libcudart.so.13\n"
    "                 U __cxa_atexit@GLIBC_2.2.5\n"
    "                 U cudaGetLastError@libcudart.so.13\n"
    "                 U cudaMalloc@libcudart.so.13\n"
    "                 U exit@GLIBC_2.2.5\n";  // nvcc's host stand-ins for __device__ functions
const char* kExports = "00000000000014b0 T evk_forward\n";
const char* kDefined =
    "00000000000014b0 T evk_forward\n0000000000001590 t atexit\n"
    "0000000000001280 t _Z4reluPKfPfl\n00000000000050b8 b _ZL20__cudaFatCubinHandle\n";

TEST(CudaSymbolRules, APlainLibraryIsClean) {
  auto bad = check_cuda_symbols(tables(kExports, kImports, kDefined));
  EXPECT_FALSE(bad) << *bad;
}

TEST(CudaSymbolRules, RefusesForbiddenImportsExportsAndDefinitions) {
  struct C {
    std::string exported, imported, defined, needle;
  } cases[] = {
      {kExports, std::string(kImports) + "  U cublasSgemm_v2@libcublas.so.13\n", kDefined,
       "cuBLAS"},
      {kExports, std::string(kImports) + "  U cudnnCreate\n", kDefined, "cudnnCreate"},
      {kExports, std::string(kImports) + "  U cudaStreamCreateWithFlags@libcudart.so.13\n",
       kDefined, "cudaStreamCreateWithFlags"},
      {kExports, std::string(kImports) + "  U cudaEventRecord@libcudart.so.13\n", kDefined,
       "events"},
      {kExports, std::string(kImports) + "  U cudaGraphLaunch@libcudart.so.13\n", kDefined,
       "graphs"},
      {kExports, std::string(kImports) + "  U cuMemcpyDtoH_v2\n", kDefined, "driver API"},
      {kExports, std::string(kImports) + "  U pthread_create@GLIBC_2.34\n", kDefined,
       "pthread_create"},
      {kExports, std::string(kImports) + "  U dlopen@GLIBC_2.34\n", kDefined, "dlopen"},
      {kExports, std::string(kImports) + "  U _ZN6thrust6detail4sortEv\n", kDefined, "Thrust"},
      {std::string(kExports) + "0000000000001600 T evk_debug_hook\n", kImports, kDefined,
       "evk_debug_hook"},
      {kExports, kImports, std::string(kDefined) + "0000000000001700 t cudaEventElapsedTime\n",
       "cudaEventElapsedTime"},
      {kExports, kImports, std::string(kDefined) + "0000000000001700 t clock_gettime\n",
       "clock_gettime"},
  };
  for (const auto& c : cases) {
    auto bad = check_cuda_symbols(tables(c.exported, c.imported, c.defined));
    ASSERT_TRUE(bad) << c.needle;
    EXPECT_NE(bad->find(c.needle), std::string::npos) << *bad;
  }
}

TEST(PtxasReport, OneLinePerKernelWithSpillsCalledOut) {
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z4reluPKfPfl' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z4reluPKfPfl\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compiling entry function '_Z3bigv' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z3bigv\n"
      "    64 bytes stack frame, 40 bytes spill stores, 32 bytes spill loads\n"
      "ptxas info    : Used 255 registers, 368 bytes cmem[0]\n";
  std::string s = summarize_ptxas(log);
  EXPECT_NE(s.find("relu(float const*, float*, long) [sm_90]: 12 registers, 1024 B smem, 0 B "
                   "stack, no spills"),
            std::string::npos)
      << s;
  EXPECT_NE(
      s.find("big() [sm_90]: 255 registers, 0 B smem, 64 B stack, SPILLS 40 B stores / 32 B loads"),
      std::string::npos)
      << s;
  EXPECT_EQ(summarize_ptxas("nvcc error: something\n"), "");
}

TEST(CudaBackend, ArchComesFromTheEnvironmentAndIsValidated) {
  ::unsetenv("EVK_CUDA_ARCH");
  EXPECT_EQ(CudaBackend::arch(), "sm_90");
  ::setenv("EVK_CUDA_ARCH", "sm_80", 1);
  EXPECT_EQ(CudaBackend::arch(), "sm_80");
  EXPECT_NE(CudaBackend().compile_command().find("-arch=sm_80"), std::string::npos);
  ::setenv("EVK_CUDA_ARCH", "sm_90; rm -rf /", 1);
  try {
    CudaBackend::arch();
    ADD_FAILURE() << "a malformed arch must be refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("EVK_CUDA_ARCH"), std::string::npos) << e.what();
  }
  ::unsetenv("EVK_CUDA_ARCH");
}

TEST(CudaBackend, RunnerSpecHasNoAddressSpaceLimit) {
  RunnerSpec s = CudaBackend().runner("/tmp");
  EXPECT_EQ(s.executable, "evk-runner-cuda");
  EXPECT_FALSE(s.limit_address_space);
  EXPECT_EQ(s.env.at("CUDA_MODULE_LOADING"), "EAGER");
}

TEST(CudaBackend, CompileKeepsThePtxasReportAndTrimsErrors) {
  if (!CudaBackend::nvcc_path()) GTEST_SKIP() << "nvcc not found: install the CUDA toolkit";
  CudaBackend b;
  TempDir ok("evk-cuda-test-");
  CompileResult r = b.compile(kClean, ok.path(), 120);
  ASSERT_TRUE(r.ok) << r.feedback;
  EXPECT_NE(r.notes.find("scale("), std::string::npos) << r.notes;
  EXPECT_NE(r.notes.find("registers"), std::string::npos) << r.notes;
  auto bad = b.check_artifact(r.artifact);
  EXPECT_FALSE(bad) << *bad;

  TempDir broken("evk-cuda-test-");
  std::string src = kClean;
  src.replace(src.find("return cudaGetLastError()"), 6, "retrun");
  CompileResult e = b.compile(src, broken.path(), 120);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.feedback.find("kernel.cu("), std::string::npos) << e.feedback;
  EXPECT_NE(e.feedback.find("error"), std::string::npos) << e.feedback;
  EXPECT_EQ(e.feedback.find(broken.path().string()), std::string::npos)
      << "paths are made relative";
  EXPECT_EQ(e.feedback.find("ptxas info"), std::string::npos) << e.feedback;
}

// Whatever this machine has, the backend's answer is consistent with the runner's probe and,
// when there is no device, says why and what to do.
TEST(CudaBackend, DeviceProbeExplainsItself) {
  auto why = CudaBackend().device_unavailable();
  auto exe = CudaBackend::runner_executable();
  if (!std::filesystem::exists(exe)) {
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("was not built"), std::string::npos) << *why;
    return;
  }
  ProcessResult p = run_process({exe.string(), "--probe"});
  EXPECT_EQ(p.ok(), !why.has_value()) << p.out << p.err;
  if (why) {
    EXPECT_NE(why->find("no CUDA device"), std::string::npos) << *why;
    EXPECT_NE(why->find("only on a machine with an NVIDIA GPU"), std::string::npos) << *why;
  } else {
    EXPECT_NE(p.out.find("device 0:"), std::string::npos) << p.out;
  }
}

}  // namespace
}  // namespace evk
