#include "tasks/lint.h"

#include <fmt/format.h>

#include <set>

#include "core/hash.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

std::string LintResult::summary() const {
  if (!ok) return "lint failed: " + error;
  std::string checks, details;
  std::set<std::string> seen;
  for (const auto& f : findings) {
    if (seen.insert(f.check).second) checks += (checks.empty() ? "" : ", ") + f.check;
    if (details.size() < 300) details += (details.empty() ? "" : "; ") + f.detail;
  }
  return checks + " (" + details + ")";
}

static LintResult from_json(const json& j) {
  LintResult r;
  r.ok = j.value("ok", false);
  r.error = j.value("error", "");
  r.seconds = j.value("seconds", 0.0);
  for (const auto& f : j.value("findings", json::array()))
    r.findings.push_back({f.value("check", ""), f.value("detail", "")});
  return r;
}

LintResult lint_task(Workspace& ws, const TaskInfo& task, const OracleOptions& opt) {
  fs::path cached = ws.cache_dir() / "lint" /
                    fmt::format("{}-{}-m{}-g{}-o{}.json", task.id, task.content_hash.substr(0, 16),
                                opt.max_elements, opt.max_gflop, oracle_hash());
  if (fs::exists(cached)) return from_json(json::parse(read_file(cached)));
  std::vector<std::string> argv = {opt.python,
                                   (data_root() / "oracle" / "evk_oracle.py").string(),
                                   "lint",
                                   "--max-elements", std::to_string(opt.max_elements),
                                   "--max-gflop", fmt::format("{}", opt.max_gflop),
                                   "--timeout", fmt::format("{}", opt.timeout_s),
                                   task.path.string()};
  ProcessOptions po;
  po.timeout_s = opt.timeout_s + 60;
  po.env = oracle_thread_env(1);
  ProcessResult r = run_process(argv, po);
  json j;
  try {
    j = json::parse(r.out.substr(0, r.out.find('\n')));
  } catch (const std::exception&) {
    LintResult bad;
    bad.error = "the oracle " + r.describe() +
                (r.err.empty() ? "" : ": " + r.err.substr(r.err.size() > 400 ? r.err.size() - 400 : 0));
    return bad;  // not cached: the machinery failed, not the task
  }
  fs::create_directories(cached.parent_path());
  write_file_atomic(cached, j.dump());
  return from_json(j);
}

}  // namespace evk
