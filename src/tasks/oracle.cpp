#include "tasks/oracle.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "core/config.h"
#include "core/cpu_lease.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/json_read.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"
#include "tasks/baseline.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

static TensorSpec spec_from_json(const json& j) {
  TensorSpec t;
  t.name = j.at("name");
  t.role = j.at("role");
  t.dtype = dtype_from_name(j.at("dtype"));
  // A shape whose element count overflows would be undefined behaviour wherever it is used.
  int64_t n = 1;
  for (const auto& d : j.at("shape")) {
    t.shape.push_back(json_int64(d, 0, int64_t{1} << 40));
    if (t.shape.back() && n > (int64_t{1} << 40) / t.shape.back())
      throw json::out_of_range::create(406, "tensor " + t.name + " has too many elements", &j);
    n *= t.shape.back() ? t.shape.back() : 1;
  }
  t.scalar = j.value("scalar", false);
  return t;
}

std::string oracle_hash() {
  static const std::string h = short_hash(read_file(data_root() / "oracle" / "evk_oracle.py"), 8);
  return h;
}

OracleOptions oracle_options(const Config& c) {
  OracleOptions o;
  o.max_elements = c.integer("tasks.max_elements");
  o.max_gflop = c.real("tasks.max_gflop");
  o.threads = static_cast<int>(c.integer("verify.threads"));
  o.timing_runs = static_cast<int>(c.integer("oracle.timing_runs"));
  o.timeout_s = c.real("oracle.timeout_s");
  o.python = c.str("oracle.python");
  return o;
}

// The error of an oracle process that failed: its JSON line's message and whether it says it
// ran out of time (exit code 3 is the task's own fault), else what the process did.
static OracleError oracle_failure(const ProcessResult& r, const std::string& what) {
  std::string reason;
  auto why = r.timed_out ? OracleError::Why::Timeout : OracleError::Why::Failed;
  try {
    auto j = json::parse(r.out.substr(0, r.out.find('\n')));
    reason = j.value("error", "");
    if (r.exit_code == 3 && !r.timed_out)
      why = j.value("timeout", false) ? OracleError::Why::Timeout : OracleError::Why::Broken;
  } catch (const std::exception&) {
  }
  if (reason.empty())
    reason = "the oracle " + r.describe() +
             (r.err.empty() ? "" : ": " + r.err.substr(r.err.size() > 600 ? r.err.size() - 600 : 0));
  return OracleError(why, what + ": " + reason);
}

const char* why_name(OracleError::Why w) {
  switch (w) {
    case OracleError::Why::Broken: return "broken file";
    case OracleError::Why::Timeout: return "oracle timeout";
    case OracleError::Why::Failed: break;
  }
  return "no reference";
}

Reference load_reference(const fs::path& dir) {
  Reference r;
  r.tensors_path = dir / "ref.safetensors";
  r.meta_path = dir / "meta.json";
  auto malformed = [&](const std::exception& e) {
    return Error("reference metadata " + r.meta_path.string() + " is malformed (" + e.what() +
                 "): delete the folder to have it recomputed");
  };
  try {
    r.meta = parse_json(read_file(r.meta_path));
    for (const auto& e : r.meta.at("abi")) r.abi.push_back(spec_from_json(e));
    for (const auto& e : r.meta.at("outputs")) r.outputs.push_back(spec_from_json(e));
    r.eager_ms = r.meta.at("eager").at("median_ms").get<double>();
    if (r.meta.contains("atol") && r.meta["atol"].is_number()) r.atol = r.meta["atol"];
    if (r.meta.contains("rtol") && r.meta["rtol"].is_number()) r.rtol = r.meta["rtol"];
    r.flops = json_int(r.meta, "flops", int64_t{0});
    r.bytes = json_int(r.meta, "bytes", int64_t{0});
  } catch (const json::exception& e) {
    throw malformed(e);
  } catch (const Error& e) {  // an unknown dtype
    throw malformed(e);
  }
  return r;
}

std::map<std::string, std::string> oracle_thread_env(int threads) {
  const std::string t = std::to_string(threads);
  return {{"OMP_NUM_THREADS", t}, {"OPENBLAS_NUM_THREADS", t}, {"MKL_NUM_THREADS", t}};
}

// The cache folder of a task's references: its content, the oracle, the fitting, the thread
// count and the eager baseline they were made with (an eager time measured under another
// BLAS or torch is never reused).
static fs::path refs_dir(Workspace& ws, const TaskInfo& task, const OracleOptions& opt,
                         const std::string& baseline_key) {
  return ws.cache_dir() / "refs" /
         fmt::format("{}-{}-o{}", task.id, task.content_hash.substr(0, 16), oracle_hash()) /
         fmt::format("m{}-g{}-t{}-b{}", opt.max_elements, opt.max_gflop, opt.threads, baseline_key);
}

// A fresh reference whose process ran another baseline than the probe said (the system
// changed under a cached probe): the probe is forgotten and the reference refused.
static void check_same_baseline(Workspace& ws, const fs::path& tmp, const EagerBaseline& expected,
                                const OracleOptions& opt, const std::string& what) {
  EagerBaseline got;
  try {
    got = EagerBaseline::from_json(json::parse(read_file(tmp / "meta.json")).at("baseline"));
  } catch (const std::exception& e) {
    throw OracleError(OracleError::Why::Failed,
                      what + ": the reference records no eager baseline (" + e.what() + ")");
  }
  if (got.key() == expected.key()) return;
  forget_eager_baseline(ws, opt);
  throw OracleError(OracleError::Why::Failed,
                    fmt::format("{}: the oracle ran {} where the baseline probe found {}: the "
                                "system changed; run `evokernel doctor` and try again",
                                what, got.describe(), expected.describe()));
}

Reference oracle_reference(Workspace& ws, const TaskInfo& task, int seed,
                           const OracleOptions& opt) {
  const EagerBaseline baseline = eager_baseline(ws, opt);
  fs::path dir = refs_dir(ws, task, opt, baseline.key()) / fmt::format("seed{}", seed);
  if (fs::exists(dir / "meta.json") && fs::exists(dir / "ref.safetensors"))
    return load_reference(dir);

  // Each process writes into its own folder, then renames it into place: two processes asking
  // for the same reference never see each other's half-written files.
  fs::create_directories(dir.parent_path());
  fs::path tmp = dir.parent_path() / fmt::format(".tmp-seed{}-{}", seed, ::getpid());
  fs::remove_all(tmp);
  std::vector<std::string> argv = {opt.python,
                                   (data_root() / "oracle" / "evk_oracle.py").string(),
                                   "ref",
                                   "--seed", std::to_string(seed),
                                   "--out", tmp.string(),
                                   "--max-elements", std::to_string(opt.max_elements),
                                   "--max-gflop", fmt::format("{}", opt.max_gflop),
                                   "--threads", std::to_string(opt.threads),
                                   "--timing-runs", std::to_string(opt.timing_runs),
                                   "--timeout", fmt::format("{}", opt.timeout_s),
                                   task.path.string()};
  ProcessOptions po;
  po.timeout_s = opt.timeout_s + 60;
  // The fair baseline (docs/architecture.md §2): glibc keeps freed memory, as a caching allocator
  // would, so PyTorch does not pay page faults a preallocated kernel output never pays.
  po.env["MALLOC_MMAP_THRESHOLD_"] = "4294967296";
  po.env["MALLOC_TRIM_THRESHOLD_"] = "4294967296";
  // The eager time is the kernel's competitor: the same threads (torch's, OpenMP's, the
  // BLAS's) and CPUs of its own, as a candidate's runner gets (verify/runner_client.cpp).
  for (const auto& [k, v] : oracle_thread_env(opt.threads)) po.env[k] = v;
  ProcessResult r;
  {
    CpuLease lease(opt.threads);
    po.cpus = lease.cpus();
    r = run_process(argv, po);
  }
  const std::string what = "task " + task.id + " (seed " + std::to_string(seed) + ")";
  if (!r.ok()) {
    fs::remove_all(tmp);
    throw oracle_failure(r, what);
  }
  try {
    check_same_baseline(ws, tmp, baseline, opt, what);
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
  std::error_code ec;
  fs::rename(tmp, dir, ec);
  if (ec) fs::remove_all(tmp);  // another process won the race; its result is identical
  return load_reference(dir);
}

ExtraSets oracle_extra_sets(Workspace& ws, const TaskInfo& task, int seeds, int variants,
                            const OracleOptions& opt) {
  fs::path dir = refs_dir(ws, task, opt, eager_baseline(ws, opt).key()) /
                 fmt::format("sets-s{}-v{}", seeds, variants);
  if (!fs::exists(dir / "sets.json")) {
    fs::create_directories(dir.parent_path());
    fs::path tmp = dir.parent_path() / fmt::format(".tmp-sets-{}", ::getpid());
    fs::remove_all(tmp);
    std::vector<std::string> argv = {opt.python,
                                     (data_root() / "oracle" / "evk_oracle.py").string(),
                                     "sets",
                                     "--out", tmp.string(),
                                     "--seeds", std::to_string(seeds),
                                     "--variants", std::to_string(variants),
                                     "--max-elements", std::to_string(opt.max_elements),
                                     "--max-gflop", fmt::format("{}", opt.max_gflop),
                                     "--threads", std::to_string(opt.threads),
                                     "--timeout", fmt::format("{}", opt.timeout_s),
                                     task.path.string()};
    ProcessOptions po;
    // The oracle gives each set (edge, shape2, the variants) a reference's time limit.
    po.timeout_s = std::max(opt.timeout_s, 60.0) * (2 + variants) + 60;
    po.env = oracle_thread_env(opt.threads);
    ProcessResult r = run_process(argv, po);
    if (!r.ok()) {
      fs::remove_all(tmp);
      throw oracle_failure(r, "task " + task.id + " (extra input sets)");
    }
    std::error_code ec;
    fs::rename(tmp, dir, ec);
    if (ec) fs::remove_all(tmp);  // another process won the race
  }
  ExtraSets out;
  json rep;
  try {
    rep = json::parse(read_file(dir / "sets.json"));
  } catch (const json::exception& e) {
    throw Error((dir / "sets.json").string() + " is malformed (" + e.what() + "): delete the folder");
  }
  for (const auto& name : rep.at("written")) out.sets.emplace_back(name.get<std::string>(), load_reference(dir / name.get<std::string>()));
  for (const auto& [k, v] : rep.at("skipped").items()) out.skipped[k] = v.get<std::string>();
  return out;
}

}  // namespace evk
