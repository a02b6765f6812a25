// The ascendc backend: Ascend C kernels (kernel_operator.h, namespace AscendC) plus a host
// evk_forward that tiles and launches them, compiled by g++ against evokernel's emulation
// headers (knowledge/ascendc/) and run by evk-runner-ascendc on an emulated 910B AI Core.
// Latency is modeled (the runner's cycle model), and so is the PyTorch-on-NPU eager baseline
// (eager_model.h), from the same constants (npu_constants.h): both are deterministic.
#pragma once
#include "backends/backend.h"
#include "backends/symbol_tables.h"

namespace evk {

class AscendcBackend : public Backend {
 public:
  std::string name() const override { return "ascendc"; }
  std::string source_filename() const override { return "kernel.cpp"; }
  std::string language() const override {
    return "Ascend C (kernel_operator.h, namespace AscendC) for an emulated Ascend 910B AI Core";
  }
  std::optional<std::string> static_check(const std::string& source) const override;
  CompileResult compile(const std::string& source, const std::filesystem::path& workdir,
                        double timeout_s) const override;
  std::optional<std::string> check_artifact(const std::filesystem::path& artifact) const override;
  std::string compile_command() const override;
  std::optional<std::string> device_unavailable() const override;
  std::optional<ModeledEager> modeled_eager(const Reference& r) const override;
  std::string timing_note(int) const override { return ""; }  // cycles, not CPU time

  static constexpr uint64_t kCompileAddressSpace = 2ull << 30;
};

// The ascendc artifact rules (gate 1b): only evk_forward exported, no C library symbol
// defined, and imports limited to the emulator's entry points and the math and memory
// functions of the C and C++ runtime.
std::optional<std::string> check_ascendc_symbols(const SymbolTables& t);

}  // namespace evk
