#include "agent/prompt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/error.h"
#include "core/paths.h"

namespace evk {
using nlohmann::json;

namespace {

constexpr size_t kMaxCodeLines = 80;  // code of memory items is cut to keep prompts bounded

std::string clip_lines(const std::string& s, size_t max_lines) {
  size_t pos = 0;
  for (size_t n = 0; n < max_lines; ++n) {
    pos = s.find('\n', pos);
    if (pos == std::string::npos) return s;
    ++pos;
  }
  return s.substr(0, pos) + "// ... (cut)\n";
}

// Markdown cut inside a code block would leave its fence open and swallow the rest of the
// prompt (the "## Answer" included): the block is closed.
std::string close_open_fence(std::string s) {
  bool open = false;
  for (size_t pos = 0; pos < s.size();) {
    if (s.compare(pos, 3, "```") == 0) open = !open;
    size_t nl = s.find('\n', pos);
    pos = nl == std::string::npos ? s.size() : nl + 1;
  }
  if (!open) return s;
  if (!s.empty() && s.back() != '\n') s += "\n";
  return s + "```\n";
}

constexpr size_t kMaxBodyLines = 150;  // an item's text; its code field has kMaxCodeLines

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < s.size();) {
    size_t nl = s.find('\n', pos);
    size_t end = nl == std::string::npos ? s.size() : nl + 1;
    out.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// "Before:" or "**Before**:" alone on a line: a best practice's slow version follows.
bool is_before_label(std::string line) {
  std::erase_if(line,
                [](char c) { return c == '*' || std::isspace(static_cast<unsigned char>(c)); });
  return line == "Before:";
}

// A body past kMaxBodyLines loses a best practice's "Before:" code first (its **Change** says
// what it was): cut from the end instead, a long one showed the model only the slow version
// and never the "After:" code it is about.
std::string drop_before_code(const std::string& body) {
  std::vector<std::string> lines = split_lines(body);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!is_before_label(lines[i])) continue;
    size_t open = i + 1;
    while (open < lines.size() && lines[open].rfind("```", 0) != 0) ++open;
    size_t close = open + 1;
    while (close < lines.size() && lines[close].rfind("```", 0) != 0) ++close;
    if (close >= lines.size()) return body;
    lines.erase(lines.begin() + static_cast<long>(open),
                lines.begin() + static_cast<long>(close) + 1);
    lines.insert(lines.begin() + static_cast<long>(open),
                 "(its code is left out to keep the prompt short: the **Change** above says "
                 "what it did)\n");
    break;
  }
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

std::string clip_body(const std::string& body) {
  if (split_lines(body).size() <= kMaxBodyLines) return body;
  return close_open_fence(clip_lines(drop_before_code(body), kMaxBodyLines));
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::string shape_or_unknown(const json& op) {
  if (!op.contains("shape") || op["shape"].is_null()) return "?";
  return shape_str(op["shape"].get<std::vector<int64_t>>());
}

std::string fitting_note(const TaskInfo& t) {
  if (t.fitted.empty()) return "";
  std::string s = "Sizes were scaled down to fit this machine:";
  for (const auto& [k, v] : t.fitted) s += fmt::format(" {} {} -> {};", k, v.first, v.second);
  return s + " the shapes below are the fitted ones.";
}

std::string render_attempt(const PromptAttempt& a, bool with_code) {
  std::string s = fmt::format("### attempt {} ({}): {}\n", a.idx, stage_name(a.stage),
                              category_name(a.category));
  if (a.category == Category::Ok) s += fmt::format("latency {:.4f} ms\n", a.latency_ms);
  if (!a.feedback.empty()) s += a.feedback + "\n";
  if (with_code && !a.code.empty()) s += "```cpp\n" + clip_lines(a.code, 200) + "```\n";
  return s;
}

}  // namespace

std::string render_template(const std::string& tmpl, const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = tmpl.find("{{", pos);
    if (open == std::string::npos) break;
    size_t close = tmpl.find("}}", open);
    if (close == std::string::npos) break;
    auto it = vars.find(tmpl.substr(open + 2, close - open - 2));
    out += tmpl.substr(pos, open - pos);
    out += it == vars.end() ? tmpl.substr(open, close + 2 - open) : it->second;
    pos = close + 2;
  }
  return out + tmpl.substr(pos);
}

std::string render_tensors(const Reference& ref) {
  std::string s;
  for (size_t i = 0; i < ref.abi.size(); ++i) {
    const auto& t = ref.abi[i];
    s += fmt::format("- in[{}] {}: {}{} {} {}\n", i, t.name, t.role, t.scalar ? " scalar" : "",
                     dtype_name(t.dtype), shape_str(t.shape));
  }
  for (size_t i = 0; i < ref.outputs.size(); ++i) {
    const auto& t = ref.outputs[i];
    s += fmt::format("- out[{}] {}: output {} {}\n", i, t.name, dtype_name(t.dtype),
                     shape_str(t.shape));
  }
  return s;
}

std::string render_fx_ops(const Reference& ref) {
  const json ops = ref.meta.value("fx_ops", json::array());
  if (ops.empty()) return "(not traceable)\n";
  std::string s;
  for (const auto& op : ops) {
    std::string kind = op.value("kind", "");
    std::string target = kind == "call_module" || kind == "get_attr" || kind == "placeholder"
                             ? op.value("target", op.value("name", ""))
                             : op.value("op", "");
    std::string module = kind == "call_module" ? " [" + op.value("module", "") + "]" : "";
    s += fmt::format("- %{} = {} {}{} args={} kwargs={} -> {}\n", op.value("name", ""), kind,
                     target, module, op.value("args", "()"), op.value("kwargs", "{}"),
                     shape_or_unknown(op));
  }
  return s;
}

std::string nest_headings(const std::string& markdown) {
  std::string out;
  bool fence = false;
  size_t pos = 0;
  while (pos < markdown.size()) {
    size_t nl = markdown.find('\n', pos);
    std::string line = markdown.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
    pos = nl == std::string::npos ? markdown.size() : nl + 1;
    if (line.rfind("```", 0) == 0) fence = !fence;
    size_t hashes = line.find_first_not_of('#');
    if (!fence && hashes > 0 && hashes != std::string::npos && line[hashes] == ' ') line = "##" + line;
    out += line;
  }
  return out;
}

std::string render_memory(const std::vector<PromptItem>& items) {
  if (items.empty()) return "(none)\n";
  std::string s;
  for (const auto& it : items) {
    s += fmt::format("### [memory #{}] {}: {}\n", it.id, it.kind, it.title);
    if (!it.tags.empty()) s += "tags: " + join(it.tags, ", ") + "\n";
    if (!it.body.empty()) s += clip_body(nest_headings(it.body));
    if (!it.body.empty() && it.body.back() != '\n') s += "\n";
    if (!it.feedback.empty()) s += "feedback: " + clip_lines(it.feedback, 12) + "\n";
    if (!it.code.empty()) s += "```cpp\n" + clip_lines(it.code, kMaxCodeLines) + "```\n";
    s += "\n";
  }
  return s;
}

std::vector<std::string> op_names(const Reference& ref) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& op : ref.meta.value("fx_ops", json::array())) {
    std::string kind = op.value("kind", "");
    if (kind != "call_function" && kind != "call_method" && kind != "call_module") continue;
    std::string name = op.value("op", "");
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    if (seen.insert(name).second) out.push_back(name);
  }
  return out;
}

std::string bound_advice(const std::string& guide, Bound b) {
  const std::string key = std::string("- bound `") + bound_name(b) + "`:";
  for (const auto& line : split_lines(guide)) {
    if (line.rfind(key, 0) != 0) continue;
    std::string advice = line.substr(key.size());
    advice.erase(0, advice.find_first_not_of(' '));
    while (!advice.empty() && std::isspace(static_cast<unsigned char>(advice.back())))
      advice.pop_back();
    return advice;
  }
  return "";
}

std::string render_start_diagnosis(const Diagnosis& d, const std::string& guide) {
  if (d.empty()) return "(none: the verifier could not tell what bounds this kernel)\n";
  std::string s = render_diagnosis(d);
  std::string advice = bound_advice(guide, d.bound);
  if (!advice.empty()) s += "advice for this bound: " + advice + "\n";
  return s;
}

PromptTemplates::PromptTemplates(const std::filesystem::path& dir) {
  auto load = [&](const char* name) {
    auto p = dir / name;
    if (!std::filesystem::exists(p))
      throw UsageError("prompt template " + p.string() +
                       " is missing: copy prompts/ from evokernel into your --prompt-dir");
    return read_file(p);
  };
  system_ = load("system.md");
  draft_ = load("draft.md");
  refine_ = load("refine.md");
}

static std::map<std::string, std::string> common_vars(const PromptInputs& in) {
  return {{"backend", in.backend},
          {"language", in.language},
          {"source_filename", in.source_filename},
          {"guide", nest_headings(in.guide)},
          {"task_id", in.task->id},
          {"level", std::to_string(in.task->level)},
          {"fitting_note", fitting_note(*in.task)},
          {"timing_note", in.timing_note},
          {"task_source", in.task->source},
          {"tensors", render_tensors(*in.ref)},
          {"fx_ops", render_fx_ops(*in.ref)},
          {"memory", render_memory(in.memory)}};
}

std::string PromptTemplates::draft(const PromptInputs& in) const {
  auto vars = common_vars(in);
  std::string attempts;
  for (size_t i = 0; i < in.attempts.size(); ++i)
    attempts += render_attempt(in.attempts[i], i + 1 == in.attempts.size());
  vars["attempts"] = attempts.empty() ? "(none yet)\n" : attempts;
  return render_template(draft_, vars);
}

std::string PromptTemplates::refine(const PromptInputs& in) const {
  auto vars = common_vars(in);
  const auto& sp = *in.start_point;
  // The verdict's own baseline: for a modeled backend the reference's measured CPU eager
  // time is another clock (a 9 us Ascend C kernel was shown as 53x over it).
  double eager = in.start_point_eager_ms > 0 ? in.start_point_eager_ms : in.ref->eager_ms;
  std::string basis =
      in.start_point_eager_basis.empty() ? "" : ", modeled: " + in.start_point_eager_basis;
  vars["start_point"] = fmt::format(
      "attempt {}: {:.4f} ms ({:.1f}% of roofline; {:.2f}x over PyTorch eager{})\n```cpp\n{}```\n",
      sp.idx, sp.latency_ms, 100 * in.start_point_roofline,
      sp.latency_ms > 0 ? eager / sp.latency_ms : 0.0, basis, sp.code);
  std::string children;
  for (const auto& c : in.children)
    children += c.category == Category::Ok
                    ? fmt::format("- attempt {}: ok, {:.4f} ms ({} than the start point)\n", c.idx,
                                  c.latency_ms, c.latency_ms < sp.latency_ms ? "faster" : "slower")
                    : fmt::format("- attempt {}: {}, {}\n", c.idx, category_name(c.category),
                                  clip_lines(c.feedback, 3));
  vars["children"] = children.empty() ? "(none yet)\n" : children;
  vars["diagnosis"] = render_start_diagnosis(in.start_point_diagnosis, in.guide);
  return render_template(refine_, vars);
}

}  // namespace evk
