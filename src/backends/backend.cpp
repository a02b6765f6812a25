#include "backends/backend.h"

#include <fmt/format.h>

#include "backends/ascendc/ascendc_backend.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "core/error.h"
#include "core/paths.h"

namespace evk {

std::filesystem::path Backend::knowledge_dir() const { return data_root() / "knowledge" / name(); }

RunnerSpec Backend::runner(const std::filesystem::path&) const { return {}; }

std::string Backend::timing_note(int threads) const {
  return fmt::format(
      "The verifier times this kernel, and PyTorch eager for the speed-up, on {} CPU thread{} "
      "(verify.threads): more threads than that buy no speed-up.",
      threads, threads == 1 ? "" : "s");
}

std::vector<std::string> backend_names() { return {"ascendc", "cpu", "cuda", "opencl"}; }

std::string backend_help() {
  std::string s;
  for (const auto& n : backend_names()) s += (s.empty() ? "" : "|") + n;
  return s;
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "ascendc") return std::make_unique<AscendcBackend>();
  if (name == "cpu") return std::make_unique<CpuBackend>();
  if (name == "cuda") return std::make_unique<CudaBackend>();
  if (name == "opencl") return std::make_unique<OpenClBackend>();
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown backend '" + name + "': known backends are " + known);
}

}  // namespace evk
