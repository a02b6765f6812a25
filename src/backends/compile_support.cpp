#include "backends/compile_support.h"

#include "backends/compiler_feedback.h"

#include <fmt/format.h>

#include <sstream>

namespace evk {
namespace fs = std::filesystem;

namespace {

// Feedback for a compiler that did not finish on its own, or did but failed.
std::string failure_feedback(const ProcessResult& r, const std::string& log,
                             const ProcessOptions& o, const CompilerWords& w) {
  std::string fb;
  if (r.timed_out)
    fb = fmt::format("compilation timed out after {:.0f} s ({})", o.timeout_s, w.timeout_hint);
  else if (r.term_signal)
    fb = "the compiler was " + r.describe() + " (it ran out of memory: " + w.memory_hint + ")";
  else
    fb = trim_compiler_output(log, o.cwd, w.trim);
  if (fb.empty()) fb = w.name + " " + r.describe();
  // cc1plus reports running out of its address-space limit as an internal error.
  if (log.find("out of memory") != std::string::npos ||
      log.find("virtual memory exhausted") != std::string::npos)
    fb = fmt::format("the compiler ran out of memory (limit {} GiB): {}\n",
                     o.address_space_bytes >> 30, w.memory_hint) +
         fb;
  return fb;
}

}  // namespace

std::string trim_compiler_output(std::string text, const fs::path& workdir, const TrimRule& rule) {
  FeedbackRule f;
  f.cap = rule.cap;
  f.drop_ptxas_info = rule.drop_ptxas_info;
  return format_compiler_feedback(text, workdir, f);
}

ProcessOptions compiler_options(const fs::path& workdir, double timeout_s,
                                uint64_t address_space_bytes) {
  ProcessOptions o;
  o.cwd = workdir.string();
  o.timeout_s = timeout_s;
  o.address_space_bytes = address_space_bytes;
  o.file_size_bytes = 256ull << 20;
  o.env["LC_ALL"] = "C";
  o.output_cap = 256 << 10;
  return o;
}

CompileResult run_compiler(const std::vector<std::string>& argv, const ProcessOptions& o,
                           const fs::path& lib, const CompilerWords& words) {
  CompileResult res;
  ProcessResult r = run_process(argv, o);
  res.wall_s = r.wall_s;
  res.log = r.err + r.out;
  if (r.ok() && fs::exists(lib)) {
    res.ok = true;
    res.artifact = lib;
    return res;
  }
  res.feedback = failure_feedback(r, res.log, o, words);
  return res;
}

std::string join_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

}  // namespace evk
