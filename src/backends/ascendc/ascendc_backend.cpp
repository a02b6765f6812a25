#include "backends/ascendc/ascendc_backend.h"

#include <fmt/format.h>

#include <set>

#include "backends/ascendc/ascendc_source_rules.h"
#include "backends/ascendc/eager_model.h"
#include "backends/compile_support.h"
#include "backends/host_compiler.h"
#include "backends/registry.h"
#include "backends/symbol_tables.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> compile_argv(const fs::path& include_dir, const fs::path& src,
                                      const fs::path& lib) {
  return gxx_library_argv(include_dir, {"-O2"}, src, lib);
}

// What a candidate's library may import: the emulator, memory and math helpers of the C and
// C++ runtime, and what g++ emits for exceptions, guards and operator new/delete.
bool allowed_import(const std::string& s) {
  static const std::set<std::string, std::less<>> kNames = {"memcpy",
                                                            "memmove",
                                                            "memset",
                                                            "memcmp",
                                                            "strlen",
                                                            "sqrt",
                                                            "sqrtf",
                                                            "log1p",
                                                            "log1pf",
                                                            "expm1",
                                                            "expm1f",
                                                            "sinf",
                                                            "cosf",
                                                            "exp",
                                                            "expf",
                                                            "log",
                                                            "logf",
                                                            "pow",
                                                            "powf",
                                                            "floor",
                                                            "floorf",
                                                            "ceil",
                                                            "ceilf",
                                                            "fabs",
                                                            "fabsf",
                                                            "fmax",
                                                            "fmaxf",
                                                            "fmin",
                                                            "fminf",
                                                            "round",
                                                            "roundf",
                                                            "tanh",
                                                            "tanhf",
                                                            "erf",
                                                            "erff",
                                                            "__stack_chk_fail",
                                                            "abort",
                                                            "__assert_fail",
                                                            "__cxa_finalize",
                                                            "__gxx_personality_v0",
                                                            "_Unwind_Resume",
                                                            "__cxa_allocate_exception",
                                                            "__cxa_throw",
                                                            "__cxa_free_exception",
                                                            "__cxa_begin_catch",
                                                            "__cxa_end_catch",
                                                            "__cxa_rethrow",
                                                            "__cxa_guard_acquire",
                                                            "__cxa_guard_release",
                                                            "__cxa_guard_abort",
                                                            "__cxa_pure_virtual",
                                                            "_ITM_deregisterTMCloneTable",
                                                            "_ITM_registerTMCloneTable",
                                                            "__gmon_start__",
                                                            "__cxa_atexit"};
  if (kNames.count(s)) return true;
  static const char* kPrefixes[] = {"evk_acl_", "_Znw", "_Zdl",  "_Zna",   "_Zda", "_ZSt",
                                    "_ZTI",     "_ZTV", "_ZNSt", "_ZNKSt", "_ZTS"};
  for (const char* p : kPrefixes)
    if (s.rfind(p, 0) == 0) {
      // std::thread, std::async and file streams stay out even though they are std::.
      for (const char* bad : {"_ZNSt6thread", "_ZSt5async", "_ZNSt14basic_ifstream",
                              "_ZNSt14basic_ofstream", "_ZNSt13basic_filebuf", "_ZNSt6chrono"})
        if (s.rfind(bad, 0) == 0) return false;
      return true;
    }
  return false;
}

}  // namespace

std::optional<std::string> check_ascendc_symbols(const SymbolTables& t) {
  for (const auto& s : parse_nm(t.exported)) {
    if (s.name == "evk_forward" || is_weak_std_instance(s)) continue;
    return fmt::format(
        "the library exports `{}`: only evk_forward may be exported (kernels "
        "and helpers stay hidden: the build uses -fvisibility=hidden)",
        s.name);
  }
  for (const auto& s : parse_nm(t.defined))
    if (s.name.rfind("evk_acl_", 0) == 0 || s.name == "malloc" || s.name == "free" ||
        s.name == "memcpy" || s.name == "mprotect" || s.name == "sigaction")
      return fmt::format(
          "the library defines `{}`: kernels must not replace the emulator's "
          "or the C library's functions",
          s.name);
  for (const auto& s : parse_nm(t.imported))
    if (!allowed_import(s.name))
      return fmt::format(
          "the library calls `{}`, which an Ascend C kernel may not use: only "
          "the Ascend C API, math functions and memcpy/memset reach outside the "
          "kernel",
          s.name);
  return std::nullopt;
}

std::optional<std::string> AscendcBackend::static_check(const std::string& source) const {
  return check_ascendc_source(source);
}

std::string AscendcBackend::compile_command() const {
  return join_argv(compile_argv(knowledge_dir(), "kernel.cpp", "kernel.so"));
}

CompileResult AscendcBackend::compile(const std::string& source, const fs::path& workdir,
                                      double timeout_s) const {
  return build_gxx_library(source, workdir, source_filename(), knowledge_dir(), {"-O2"}, timeout_s,
                           kCompileAddressSpace);
}

std::optional<std::string> AscendcBackend::check_artifact(const fs::path& artifact) const {
  return check_ascendc_symbols(read_symbol_tables(artifact));
}

std::optional<std::string> AscendcBackend::device_unavailable() const {
  const std::string& runner = backend_row(name()).runner;
  if (!fs::exists(runner_dir() / runner))
    return fmt::format("{} is not built in {} (rebuild: make build)", runner,
                       runner_dir().string());
  return std::nullopt;
}

std::optional<Backend::ModeledEager> AscendcBackend::modeled_eager(const Reference& r) const {
  EagerCost c = evk::modeled_eager(r, runner_dir() / backend_row(name()).eager);
  return ModeledEager{c.ms, c.basis(), c.fallback};
}

}  // namespace evk
