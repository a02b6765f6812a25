// What every backend does around its compiler, kept in one place so the limits and the
// feedback a candidate sees stay the same across backends: the child's resource limits, the
// trimming of compiler output into feedback, the feedback for a compiler that timed out, was
// killed or ran out of memory, and the argv shown in prompts. Backend-specific texts are
// passed in; nothing here knows a backend.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/process.h"

namespace evk {

// How compiler output becomes feedback: format_compiler_feedback (compiler_feedback.h) puts
// the errors first, warnings in the room left, within `cap` bytes; it reads cap and
// drop_ptxas_info (the markers are kept for the backends that set them).
struct TrimRule {
  std::string error_marker = "error:";        // a line holding this counts as an error
  std::string source_marker = "kernel.cpp:";  // a line holding this starts the kept text
  bool drop_ptxas_info = false;               // skip ptxas resource lines (kept as notes)
  size_t cap = 3000;
};

// `text` trimmed by `rule`, with "<workdir>/" removed from paths.
std::string trim_compiler_output(std::string text, const std::filesystem::path& workdir,
                                 const TrimRule& rule = {});

// Options for an unsandboxed compiler child: cwd `workdir`, wall clock, address-space and
// file-size limits (a template bomb ends as a failed compile), LC_ALL=C, output capped.
ProcessOptions compiler_options(const std::filesystem::path& workdir, double timeout_s,
                                uint64_t address_space_bytes);

// The words of a failed compile's feedback that differ between compilers.
struct CompilerWords {
  std::string name;          // "the compiler": used when there is no output at all
  std::string timeout_hint;  // "(...)" after "compilation timed out after N s"
  std::string memory_hint;   // after "ran out of memory": what probably caused it
  TrimRule trim;
};

// Runs `argv` with `o`; ok (artifact `lib`) when it exits 0 and `lib` exists, else feedback
// saying why: timed out, killed (out of memory), or the trimmed errors.
CompileResult run_compiler(const std::vector<std::string>& argv, const ProcessOptions& o,
                           const std::filesystem::path& lib, const CompilerWords& words);

// argv joined by spaces, for compile_command().
std::string join_argv(const std::vector<std::string>& argv);

}  // namespace evk
