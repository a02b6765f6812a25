#include "tasks/suite.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/hash.h"
#include "core/json_read.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"
#include "tasks/oracle.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> builtin_suites() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data_root() / "suites", ec))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path resolve_suite_dir(const std::string& suite) {
  fs::path dir;
  if (suite.rfind("builtin:", 0) == 0) {
    dir = data_root() / "suites" / suite.substr(8);
    if (!fs::is_directory(dir)) {
      std::string names;
      for (const auto& n : builtin_suites()) names += (names.empty() ? "" : ", ") + n;
      throw UsageError("unknown suite '" + suite + "': built-in suites are builtin:{" + names +
                       "}");
    }
  } else {
    dir = suite;
    if (!fs::is_directory(dir))
      throw UsageError("suite folder '" + suite +
                       "' does not exist: give a folder of KernelBench task files or builtin:NAME");
  }
  return fs::canonical(dir);
}

static std::string tail(const std::string& s, size_t n) {
  return s.size() > n ? s.substr(s.size() - n) : s;
}

TaskInfo task_info_from_json(const json& j, TaskInfo t) {
  if (!j.is_object()) throw json::type_error::create(302, "a description must be an object", &j);
  t.ok = j.value("ok", false);
  t.error = j.value("error", "");
  t.level = json_int(j, "level", 0);
  t.doc = j.value("doc", "");
  t.input_elements = json_int(j, "input_elements", int64_t{0});
  if (j.contains("fit") && j["fit"].is_object()) {
    const json& f = j["fit"];
    t.elements = json_int<int64_t>(f.at("elements").at(1));
    t.flops = json_int<int64_t>(f.at("flops").at(1));
    t.within_bounds = f.value("within_bounds", true);
  }
  if (j.contains("constants"))
    for (const auto& [k, v] : j["constants"].items()) t.constants[k] = json_int<int64_t>(v);
  if (j.contains("fitted"))
    for (const auto& [k, v] : j["fitted"].items())
      t.fitted[k] = {json_int<int64_t>(v.at(0)), json_int<int64_t>(v.at(1))};
  return t;
}

std::map<std::string, int> suite_manifest_levels(const fs::path& dir) {
  std::map<std::string, int> out;
  fs::path p = dir / kSuiteManifest;
  if (!fs::exists(p)) return out;
  try {
    const json j = parse_json(read_file(p));
    // value() returns a copy: items() of it would view a temporary gone before the loop body.
    const json levels = j.is_object() ? j.value("levels", json::object()) : json();
    if (!levels.is_object())
      throw json::type_error::create(302, "\"levels\" must be an object", &levels);
    for (const auto& [k, v] : levels.items()) out[k] = json_int<int>(v);
  } catch (const json::exception& e) {
    throw UsageError(p.string() + " is malformed (" + e.what() +
                     "): it must be {\"levels\": {\"TASK_ID\": N, ...}}");
  }
  return out;
}

Suite load_suite(Workspace& ws, const std::string& suite, int64_t max_elements,
                 double timeout_s) {
  OracleOptions fit;
  fit.max_elements = max_elements;
  return load_suite(ws, suite, fit, timeout_s);
}

Suite load_suite(Workspace& ws, const std::string& suite, const OracleOptions& fit,
                 double timeout_s) {
  const int64_t max_elements = fit.max_elements;
  const std::string bounds = fmt::format("m{}-g{}", max_elements, fit.max_gflop);
  Suite s;
  s.name = suite;
  s.dir = resolve_suite_dir(suite);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(s.dir))
    if (e.is_regular_file() && e.path().extension() == ".py" &&
        e.path().filename().string()[0] != '_')
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw UsageError("suite '" + suite + "' (" + s.dir.string() +
                     ") holds no .py task files: a task is a KernelBench-format Python file");

  fs::path cache = ws.cache_dir() / "describe";
  fs::create_directories(cache);
  std::vector<TaskInfo> tasks(files.size());
  std::vector<size_t> todo;
  for (size_t i = 0; i < files.size(); ++i) {
    TaskInfo& t = tasks[i];
    t.id = files[i].stem().string();
    t.path = files[i];
    t.source = read_file(files[i]);
    t.content_hash = sha256_hex(t.source);
    fs::path cached =
        cache / fmt::format("{}-{}-o{}.json", t.content_hash.substr(0, 24), bounds, oracle_hash());
    try {
      if (fs::exists(cached)) {
        t = task_info_from_json(parse_json(read_file(cached)), t);
        continue;
      }
    } catch (const json::exception&) {  // a cache entry cut short: describe the task again
    }
    todo.push_back(i);
  }
  if (!todo.empty()) {
    std::vector<std::string> argv = {python_path(), (data_root() / "oracle" / "evk_oracle.py").string(),
                                     "describe", "--max-elements", std::to_string(max_elements),
                                     "--max-gflop", fmt::format("{}", fit.max_gflop),
                                     "--timeout", fmt::format("{}", timeout_s / 2)};
    for (size_t i : todo) argv.push_back(tasks[i].path.string());
    ProcessOptions opt;
    opt.timeout_s = timeout_s + 30.0 * static_cast<double>(todo.size());
    opt.output_cap = 16 << 20;
    opt.env = oracle_thread_env(1);  // a forward on real tensors stays on one thread
    ProcessResult r = run_process(argv, opt);
    // One JSON line per task, in order; a task that killed the interpreter leaves the rest
    // undescribed: those are marked broken with the process's fate.
    size_t k = 0, pos = 0;
    while (k < todo.size() && pos < r.out.size()) {
      size_t nl = r.out.find('\n', pos);
      std::string line = r.out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? r.out.size() : nl + 1;
      if (line.empty() || line[0] != '{') continue;
      TaskInfo& t = tasks[todo[k++]];
      json j;
      try {
        j = parse_json(line);
        t = task_info_from_json(j, t);
      } catch (const json::exception& e) {
        t.ok = false;
        t.error = "the oracle's description of this task is malformed (" + std::string(e.what()) +
                  "): " + tail(line, 200);
        continue;
      }
      write_file_atomic(
          cache / fmt::format("{}-{}-o{}.json", t.content_hash.substr(0, 24), bounds, oracle_hash()),
          j.dump());
    }
    for (; k < todo.size(); ++k) {
      TaskInfo& t = tasks[todo[k]];
      t.ok = false;
      t.error = "the oracle " + r.describe() + " while describing this task" +
                (r.err.empty() ? "" : ": " + tail(r.err, 400));
    }
  }
  auto levels = suite_manifest_levels(s.dir);
  for (auto& t : tasks)
    if (auto it = levels.find(t.id); it != levels.end()) t.level = it->second;
  s.tasks = std::move(tasks);
  return s;
}

const TaskInfo& find_task(const Suite& s, const std::string& id) {
  for (const auto& t : s.tasks)
    if (t.id == id) return t;
  std::string close;
  for (const auto& t : s.tasks)
    if (t.id.find(id) != std::string::npos || id.find(t.id) != std::string::npos)
      close += (close.empty() ? "" : ", ") + t.id;
  throw UsageError("no task '" + id + "' in suite " + s.name +
                   (close.empty() ? ": run `evokernel tasks list " + s.name + "`"
                                  : ": did you mean " + close + "?"));
}

}  // namespace evk
