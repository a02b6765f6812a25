// Rendering prompts from the template files under prompts/ (or --prompt-dir). The section
// line formats are a contract: models read them and so does the offline sim coder (see
// prompts/README.md).
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/stage.h"
#include "core/verdict.h"
#include "tasks/task.h"

namespace evk {

// One memory item as a prompt shows it.
struct PromptItem {
  int64_t id = 0;
  std::string kind, title, body, feedback, code;
  std::vector<std::string> tags;
};

// One earlier attempt as a prompt shows it.
struct PromptAttempt {
  int idx = 0;
  Stage stage = Stage::Draft;
  Category category = Category::Ok;
  std::string feedback, code;
  double latency_ms = 0;
};

struct PromptInputs {
  std::string backend, language, source_filename, guide;
  std::string timing_note;  // Backend::timing_note: the CPUs the kernel is timed on
  const TaskInfo* task = nullptr;
  const Reference* ref = nullptr;
  std::vector<PromptItem> memory;
  std::vector<PromptAttempt> attempts;       // draft: the last attempts on this task
  std::optional<PromptAttempt> start_point;  // refine
  double start_point_roofline = 0;
  // The eager baseline the start point's verdict was measured against (a modeled one for
  // ascendc); 0: the reference's.
  double start_point_eager_ms = 0;
  // What a modeled eager time rests on ("library kernels; roofline for conv2d"); "" otherwise.
  std::string start_point_eager_basis;
  Diagnosis start_point_diagnosis;  // refine: what bounds the start point (verify/diagnose.h)
  std::vector<PromptAttempt> children;       // refine: variants tried from the start point
};

class PromptTemplates {
 public:
  // Reads system.md, draft.md and refine.md from dir; UsageError naming a missing file.
  explicit PromptTemplates(const std::filesystem::path& dir);
  std::string system() const { return system_; }
  std::string draft(const PromptInputs& in) const;
  std::string refine(const PromptInputs& in) const;

 private:
  std::string system_, draft_, refine_;
};

// Replaces every {{name}} present in vars; leaves unknown names as they are.
std::string render_template(const std::string& tmpl, const std::map<std::string, std::string>& vars);

// Section renderers (exposed for tests and for `evokernel prompt`).
std::string render_tensors(const Reference& ref);
std::string render_fx_ops(const Reference& ref);
std::string render_memory(const std::vector<PromptItem>& items);
// `markdown` with every heading outside code fences two levels deeper ("# X" -> "### X"), so a
// guide's or an item's own headings stay inside the prompt's "## " section that holds them
// (for a model reading the structure, and for the sim, which splits the prompt on "## ").
std::string nest_headings(const std::string& markdown);

// The refine prompt's "## Diagnosis of the start point": the bound, its facts, and the
// guide's one-line advice for that bound (bound_advice); "(none: ...)" when there is none.
std::string render_start_diagnosis(const Diagnosis& d, const std::string& guide);
// The guide's line `- bound `NAME`: ADVICE` (its "What bounds a kernel" section); empty when
// the guide has none for the bound.
std::string bound_advice(const std::string& guide, Bound b);

// Names of the operators in the fx op list, lower-case (relu, conv2d, linear, softmax, ...),
// for exact-name lookup of api items.
std::vector<std::string> op_names(const Reference& ref);

}  // namespace evk
