#include "memory/writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace evk {

namespace {

constexpr size_t kExcerpt = 600;
constexpr size_t kFeedbackCap = 4000;
constexpr const char* kMarker = "evk-pitfall:";

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string excerpt(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n) + " [...]";
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

void add_tag(std::vector<std::string>& tags, const std::string& t) {
  if (!t.empty() && std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(t);
}

std::vector<std::string> op_tags(const std::vector<std::string>& ops) {
  std::vector<std::string> tags;
  for (const auto& o : ops) add_tag(tags, o);
  return tags;
}

std::string marker_block(const std::string& code) {
  auto lines = pitfall_lines(code);
  return lines.empty() ? "" : "Pitfall markers:\n" + join(lines, "\n") + "\n";
}

// Optimisations named in the lines a change added.
std::vector<std::string> optimisations(const std::string& before, const std::string& after) {
  std::string added;
  for (const auto& l : lines_of(diff_summary(before, after, SIZE_MAX)))
    if (l.rfind("+ ", 0) == 0) added += l + "\n";
  std::string low;
  for (char c : added) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::initializer_list<const char*> keys) {
    return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return low.find(k) != std::string::npos; });
  };
  std::vector<std::string> out;
  if (has({"omp parallel", "std::thread"})) out.push_back("parallelise");
  if (has({"simd", "_mm", "__m128", "__m256", "__m512", "vector_size"})) out.push_back("vectorise");
  if (has({"block", "tile"})) out.push_back("block");
  if (has({"fuse", "fused"})) out.push_back("fuse");
  if (has({"unroll"})) out.push_back("unroll");
  return out;
}

}  // namespace

std::vector<std::string> pitfall_lines(const std::string& code) {
  std::vector<std::string> out;
  for (const auto& l : lines_of(code))
    if (l.find(kMarker) != std::string::npos) out.push_back(l);
  return out;
}

std::vector<std::string> pitfall_names(const std::string& code) {
  std::vector<std::string> out;
  for (const auto& l : pitfall_lines(code)) {
    std::istringstream rest(l.substr(l.find(kMarker) + std::string(kMarker).size()));
    std::string name;
    if (rest >> name) out.push_back(name);
  }
  return out;
}

std::string diff_summary(const std::string& before, const std::string& after, size_t max_lines) {
  auto a = lines_of(before), b = lines_of(after);
  // Common prefix and suffix first, so the LCS table covers only the changed middle.
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  std::vector<std::string> x(a.begin() + long(pre), a.end() - long(suf));
  std::vector<std::string> y(b.begin() + long(pre), b.end() - long(suf));
  std::vector<std::string> out;
  constexpr size_t kMaxTable = 4'000'000;
  if (x.size() * y.size() > kMaxTable) {  // too large for the table: removed block, added block
    for (const auto& l : x) out.push_back("- " + l);
    for (const auto& l : y) out.push_back("+ " + l);
  } else {
    std::vector<std::vector<uint32_t>> L(x.size() + 1, std::vector<uint32_t>(y.size() + 1, 0));
    for (size_t i = x.size(); i-- > 0;)
      for (size_t j = y.size(); j-- > 0;)
        L[i][j] = x[i] == y[j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
      if (i < x.size() && j < y.size() && x[i] == y[j]) {
        ++i, ++j;
      } else if (i < x.size() && (j == y.size() || L[i + 1][j] >= L[i][j + 1])) {
        out.push_back("- " + x[i++]);  // removals before additions, as diff prints them
      } else {
        out.push_back("+ " + y[j++]);
      }
    }
  }
  if (out.empty()) return "(no change)";
  size_t total = out.size();
  if (total > max_lines) {
    out.resize(max_lines);
    out.push_back(fmt::format("... ({} more changed lines)", total - max_lines));
  }
  return join(out, "\n");
}

// What every learned item records of where it came from: its kind, the backend and task, the
// code it keeps, the item it was derived from and the task's ops as tags.
static Item learned_item(ItemKind kind, const std::string& backend, const std::string& task,
                         const std::string& code, std::optional<int64_t> parent,
                         const std::vector<std::string>& ops) {
  Item it;
  it.kind = kind;
  it.backend = backend;
  it.origin_task = task;
  it.code = code;
  it.parent = parent;
  it.tags = op_tags(ops);
  return it;
}

Item make_trace(const TraceInput& in) {
  Item it = learned_item(ItemKind::Trace, in.backend, in.task, in.code, in.parent, in.ops);
  it.feedback = excerpt(in.feedback, kFeedbackCap);
  it.feasible = in.feasible;
  it.latency_ms = in.latency_ms;
  add_tag(it.tags, category_name(in.category));
  std::string outcome;
  if (in.feasible) {
    it.title = in.latency_ms ? fmt::format("{}: feasible, {:.4g} ms", in.task, *in.latency_ms)
                             : fmt::format("{}: feasible", in.task);
    outcome = "Outcome: feasible" +
              (in.latency_ms ? fmt::format(", {:.4g} ms", *in.latency_ms) : std::string()) + "\n";
  } else {
    it.title = fmt::format("{}: failed ({})", in.task, category_name(in.category));
    outcome = fmt::format("Outcome: failed at {}.\nFeedback: {}\n", category_name(in.category),
                          excerpt(in.feedback, kExcerpt));
    for (const auto& p : pitfall_names(in.code)) add_tag(it.tags, p);
    outcome += marker_block(in.code);
  }
  it.body = fmt::format("Attempt on {} (ops: {}).\n{}", in.task, join(in.ops, ", "), outcome);
  return it;
}

Item make_experience(const ExperienceInput& in, const Summariser& summarise) {
  Item it =
      learned_item(ItemKind::Experience, in.backend, in.task, in.fixed_code, in.parent, in.ops);
  it.feedback = excerpt(in.feedback, kFeedbackCap);
  it.feasible = true;
  add_tag(it.tags, category_name(in.category));
  for (const auto& p : pitfall_names(in.failed_code)) add_tag(it.tags, p);
  it.title = fmt::format("{}: fixing {}", in.task, category_name(in.category));
  std::string rules = fmt::format(
      "Task {} (ops: {}).\nWhat failed: {}: {}\n{}What fixed it (diff from the failed code to "
      "the feasible one):\n{}\n",
      in.task, join(in.ops, ", "), category_name(in.category), excerpt(in.feedback, kExcerpt),
      marker_block(in.failed_code), diff_summary(in.failed_code, in.fixed_code));
  it.body = rules;
  if (summarise) {
    std::string s;
    try {
      s = summarise(rules);
    } catch (const std::exception&) {
      s.clear();  // the summariser is an optional improvement; the rule-based text stands
    }
    // Markers must survive summarising: they are what the coder recognises.
    if (!s.empty()) it.body = s + "\n" + marker_block(in.failed_code);
  }
  return it;
}

// "Bound before: serialised; after: mte2.\n", or "" when neither was diagnosed.
static std::string bound_line(const Diagnosis& before, const Diagnosis& after) {
  if (before.bound == Bound::Unknown && after.bound == Bound::Unknown) return "";
  return fmt::format("Bound before: {}; after: {}.\n", bound_name(before.bound),
                     bound_name(after.bound));
}

Item make_best_practice(const BestPracticeInput& in) {
  Item it =
      learned_item(ItemKind::BestPractice, in.backend, in.task, in.new_code, in.parent, in.ops);
  it.feasible = true;
  it.latency_ms = in.new_ms;
  auto opts = optimisations(in.start_code, in.new_code);
  for (const auto& o : opts) add_tag(it.tags, o);
  double speedup = in.new_ms > 0 ? in.start_ms / in.new_ms : 0;
  it.title = fmt::format("{}: {:.2f}x faster{}", in.task, speedup,
                         opts.empty() ? "" : " (" + join(opts, ", ") + ")");
  if (in.before.bound != Bound::Unknown) add_tag(it.tags, bound_tag(in.before.bound));
  it.body = fmt::format(
      "Task {} (ops: {}). Speed-up {:.2f}x: {:.4g} ms -> {:.4g} ms.\n{}Optimisations: "
      "{}\nChange:\n{}\n",
      in.task, join(in.ops, ", "), speedup, in.start_ms, in.new_ms, bound_line(in.before, in.after),
      opts.empty() ? "(none recognised)" : join(opts, ", "),
      diff_summary(in.start_code, in.new_code));
  return it;
}

}  // namespace evk
