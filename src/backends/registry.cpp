#include "backends/registry.h"

#include "backends/ascendc/ascendc_backend.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "core/error.h"

namespace evk {
namespace {

template <class B>
std::unique_ptr<Backend> make() {
  return std::make_unique<B>();
}

}  // namespace

const std::vector<BackendRow>& backend_rows() {
  static const std::vector<BackendRow> rows = {
      {"ascendc",
       make<AscendcBackend>,
       "evk-runner-ascendc",
       Timing::Modeled,
       {},
       {},
       "evk-ascendc-replay",
       "evk-ascendc-eager"},
      {"cpu", make<CpuBackend>, "evk-runner", Timing::HostClock, {}, {}, "", ""},
      {"cuda", make<CudaBackend>, "evk-runner-cuda", Timing::DeviceEvents, {"nvidia"}, {}, "", ""},
      // The ICD loader's vendor list is in /etc/OpenCL.
      {"opencl", make<OpenClBackend>, "evk-runner", Timing::HostClock, {}, {"/etc/OpenCL"}, "", ""},
  };
  return rows;
}

const BackendRow& backend_row(const std::string& name) {
  for (const auto& r : backend_rows())
    if (r.name == name) return r;
  std::string known;
  for (const auto& r : backend_rows()) known += (known.empty() ? "" : ", ") + r.name;
  throw UsageError("unknown backend '" + name + "': known backends are " + known);
}

}  // namespace evk
