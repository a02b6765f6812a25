// Feedback a model can act on. Compiler output becomes feedback that leads with the errors:
// each `error:` diagnostic with its source line and caret, paths relative to the candidate's
// folder; notes and warnings only in the room the errors leave, so a flood of warnings before
// the one error (a -Wvexing-parse cascade, say) never buries it. Every feedback text the
// verifier writes goes through cap_feedback, which says when it was cut.
// Understands gcc/clang (`file:line:col: error: ...`, with `  12 | code` and caret lines),
// nvcc (`file(line): error: ...`), PoCL's build log (`error: file:line:col: ...`) and linker
// (`ld: ...`, `undefined reference`) output.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

namespace evk {

struct FeedbackRule {
  size_t cap = 3000;              // bytes of feedback, the cut notice included
  size_t max_errors = 8;          // errors shown in full; the rest are counted
  bool drop_ptxas_info = false;   // skip ptxas resource lines (kept as notes elsewhere)
};

// `log` (a compiler's stdout+stderr) as feedback: "<workdir>/" removed from paths; a summary
// line ("2 errors, 15 warnings; errors first"), the errors with their source and caret lines
// (and the notes that follow each, room permitting), then warnings while room is left; a last
// line says what was cut. Output without any recognisable diagnostic is kept as it came,
// capped.
std::string format_compiler_feedback(const std::string& log, const std::filesystem::path& workdir,
                                     const FeedbackRule& rule = {});

// `text` when it fits in `cap` bytes; else its head, cut at a line end where possible, and a
// last line "[feedback cut: N of M bytes shown]". The result never exceeds `cap` bytes (for
// cap >= 64).
std::string cap_feedback(const std::string& text, size_t cap);

}  // namespace evk
