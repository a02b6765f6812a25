#include "run/verify_job.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>

#include "core/error.h"
#include "core/hash.h"
#include "core/paths.h"
#include "core/workspace.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

// Every field travels; a missing one is an error (the job was written by another build).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(VerifyOptions, backend, seeds, atol, rtol, rel_norm_bound,
                                   threads, compile_timeout_s, run_timeout_s, address_space_mb,
                                   timing_budget_ms, timing_max_trials, use_cache,
                                   too_fast_fraction, static_source_gate, edge_set, second_shape)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OracleOptions, max_elements, max_gflop, threads, timing_runs, timeout_s,
                                   python)

namespace {

json task_json(const TaskInfo& t) {
  json fitted = json::object();
  for (const auto& [k, v] : t.fitted) fitted[k] = {v.first, v.second};
  return {{"id", t.id},
          {"path", t.path.string()},
          {"level", t.level},
          {"doc", t.doc},
          {"source", t.source},
          {"content_hash", t.content_hash},
          {"ok", t.ok},
          {"error", t.error},
          {"input_elements", t.input_elements},
          {"constants", t.constants},
          {"fitted", fitted}};
}

TaskInfo task_from_json(const json& j) {
  TaskInfo t;
  t.id = j.at("id");
  t.path = j.at("path").get<std::string>();
  t.level = j.at("level");
  t.doc = j.value("doc", "");
  t.source = j.at("source");
  t.content_hash = j.at("content_hash");
  t.ok = j.at("ok");
  t.error = j.value("error", "");
  t.input_elements = j.value("input_elements", int64_t{0});
  t.constants = j.value("constants", std::map<std::string, int64_t>{});
  const json fitted = j.value("fitted", json::object());  // outlives the loop below
  for (const auto& [k, v] : fitted.items())
    t.fitted[k] = {v.at(0).get<int64_t>(), v.at(1).get<int64_t>()};
  return t;
}

// The node may not see the controller's task folder (a suite outside the shared filesystem):
// then the task runs from a copy of the source the job carries, keyed by its content hash.
TaskInfo task_on_node(TaskInfo t, const fs::path& scratch) {
  std::error_code ec;
  if (fs::is_regular_file(t.path, ec)) {
    try {
      if (read_file(t.path) == t.source) return t;
    } catch (const Error&) {
    }
  }
  fs::path copy = scratch / "tasks" / t.content_hash.substr(0, 16) / t.path.filename();
  if (!fs::exists(copy)) write_file_atomic(copy, t.source);
  t.path = copy;
  return t;
}

// An exclusive flock on a file beside the scratch workspace, held until release() or the end.
class NodeLock {
 public:
  explicit NodeLock(const std::string& path)
      : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw_errno("cannot lock " + path);
  }
  ~NodeLock() { release(); }
  NodeLock(const NodeLock&) = delete;
  NodeLock& operator=(const NodeLock&) = delete;
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// Links scratch/cache/refs to the shared workspace's references (see the header).
void share_references(const Workspace& scratch, const fs::path& shared) {
  fs::path link = scratch.cache_dir() / "refs", target = shared / "cache" / "refs";
  fs::create_directories(target);
  std::error_code ec;
  if (fs::is_symlink(link, ec) && fs::read_symlink(link, ec) == target) return;
  fs::remove_all(link, ec);
  // Two jobs starting at once may both get here: the loser's EEXIST is the winner's link.
  fs::create_directory_symlink(target, link, ec);
  if (ec && !fs::is_symlink(link))
    throw Error("cannot link " + link.string() + " to the shared references " + target.string() +
                ": " + ec.message());
}

}  // namespace

json to_json(const VerifyJob& job) {
  return {{"format", 1},
          {"task", task_json(job.task)},
          {"source", job.source},
          {"verify", job.verify},
          {"oracle", job.oracle},
          {"workspace", job.workspace.string()},
          {"scratch", job.scratch.string()}};
}

VerifyJob verify_job_from_json(const json& j) {
  try {
    if (j.value("format", 0) != 1)
      throw Error(
          "unknown job format (this evokernel reads format 1): use the same evokernel "
          "build on the nodes as on the submitting machine");
    VerifyJob job;
    job.task = task_from_json(j.at("task"));
    job.source = j.at("source");
    job.verify = j.at("verify").get<VerifyOptions>();
    job.oracle = j.at("oracle").get<OracleOptions>();
    job.workspace = j.at("workspace").get<std::string>();
    job.scratch = j.value("scratch", "");
    return job;
  } catch (const json::exception& e) {
    throw Error(std::string("malformed verification job: ") + e.what());
  }
}

fs::path verdict_path(const fs::path& job_file) {
  fs::path p = job_file;
  return p.replace_extension(".verdict.json");
}

fs::path default_scratch(const fs::path& workspace) {
  const char* tmp = std::getenv("TMPDIR");
  fs::path base = tmp && *tmp ? fs::path(tmp) : fs::path("/tmp");
  return base / ("evk-node-" + short_hash(fs::absolute(workspace).string(), 12));
}

Verdict run_verify_job(const fs::path& job_file) {
  Verdict v;
  try {
    VerifyJob job = verify_job_from_json(json::parse(read_file(job_file)));
    fs::path root = job.scratch.empty() ? default_scratch(job.workspace) : job.scratch;
    // Jobs of one array start together on a node and share its scratch workspace: they set it
    // up (database migrations, the references link, the task copy, the peaks) one at a time.
    fs::create_directories(root.parent_path());
    NodeLock setup(root.string() + ".lock");
    Workspace scratch(root);
    share_references(scratch, job.workspace);
    TaskInfo task = task_on_node(job.task, scratch.root());
    Verifier verifier(scratch, job.oracle);
    (void)verifier.peaks(job.verify.threads);
    setup.release();
    v = verifier.verify(task, job.source, job.verify);
  } catch (const std::exception& e) {
    // Same rule as verify_all: the machinery failing says nothing about the kernel.
    v = Verdict{};
    v.feasible = false;
    v.category = Category::Infra;
    v.feedback = std::string("verification job failed on the node: ") + e.what();
  }
  write_file_atomic(verdict_path(job_file), to_json(v).dump());
  return v;
}

}  // namespace evk
