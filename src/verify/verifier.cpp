#include "verify/verifier.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "backends/backend.h"
#include "backends/compiler_feedback.h"
#include "backends/instruction_scan.h"
#include "core/config.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/parallel.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/temp_dir.h"
#include "core/workspace.h"
#include "tasks/baseline.h"
#include "verify/compare.h"
#include "verify/diagnose.h"
#include "verify/runner_client.h"
#include "verify/runner_outcome.h"
#include "verify/toolchain.h"
#include "verify/trial.h"
#include "verify/verdict_cache.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

VerifyOptions verify_options(const Config& c) {
  VerifyOptions o;
  o.seeds = static_cast<int>(c.integer("verify.seeds"));
  o.atol = c.real("verify.atol");
  o.rtol = c.real("verify.rtol");
  o.rel_norm_bound = c.real("verify.rel_norm_bound");
  o.threads = static_cast<int>(c.integer("verify.threads"));
  o.compile_timeout_s = c.real("verify.compile_timeout_s");
  o.run_timeout_s = c.real("verify.run_timeout_s");
  o.address_space_mb = static_cast<uint64_t>(c.integer("verify.address_space_mb"));
  o.timing_budget_ms = c.real("verify.timing_budget_ms");
  o.timing_max_trials = static_cast<int>(c.integer("verify.timing_max_trials"));
  o.edge_set = c.boolean("verify.edge_set");
  o.second_shape = c.boolean("verify.second_shape");
  if (o.seeds < 1) throw UsageError("verify.seeds must be at least 1");
  if (o.threads < 1) throw UsageError("verify.threads must be at least 1");
  return o;
}

RunnerLimits runner_limits(const RunnerSpec& spec, const VerifyOptions& opt) {
  RunnerLimits lim;
  lim.executable = spec.executable;
  lim.env = spec.env;
  lim.device_nodes = spec.device_nodes;
  lim.system_dirs = spec.system_dirs;
  lim.timeout_s = opt.run_timeout_s;
  lim.address_space_mb =
      spec.limit_address_space ? std::max(opt.address_space_mb, spec.min_address_space_mb) : 0;
  lim.threads = opt.threads;
  return lim;
}

Tolerance task_tolerance(const Reference& r, const VerifyOptions& opt) {
  return Tolerance{r.atol >= 0 ? r.atol : opt.atol, r.rtol >= 0 ? r.rtol : opt.rtol,
                   opt.rel_norm_bound};
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Builds the verdict gate by gate; the first failure is final. Every failure's feedback is
// capped (kFeedbackCap, verifier.h) and says when it was cut.
struct Judge {
  Verdict v;
  bool fail(Gate g, Category category, const std::string& feedback) {
    v.feasible = false;
    v.gate = g;
    v.category = category;
    v.feedback = cap_feedback(feedback, kFeedbackCap);
    std::string line = feedback.substr(0, feedback.find('\n'));
    v.gates.push_back({g, false, line.substr(0, 300)});
    return false;
  }
  void pass(Gate g, const std::string& detail) { v.gates.push_back({g, true, detail}); }
};

bool same_input_shapes(const TrialSet& a, const TrialSet& b) {
  if (a.inputs.size() != b.inputs.size()) return false;
  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (a.inputs[i].shape != b.inputs[i].shape || a.inputs[i].dtype != b.inputs[i].dtype) return false;
  return true;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

}  // namespace

TrialSet trial_set(const Reference& r, const std::string& name, const std::string& description) {
  SafetensorsFile f = read_safetensors(r.tensors_path);
  TrialSet t;
  t.name = name;
  t.description = description;
  for (const auto& a : r.abi) {
    auto it = f.tensors.find(a.name);
    if (it == f.tensors.end()) throw Error(r.tensors_path.string() + " has no tensor " + a.name);
    t.inputs.push_back(std::move(it->second));
  }
  for (const auto& o : r.outputs) {
    auto it = f.tensors.find(o.name);
    if (it == f.tensors.end()) throw Error(r.tensors_path.string() + " has no tensor " + o.name);
    t.outputs.push_back(std::move(it->second));
    t.specs.push_back({o.name, o.dtype, o.shape});
  }
  return t;
}

Verifier::Verifier(Workspace& ws, OracleOptions oracle) : ws_(ws), oracle_(std::move(oracle)) {
  std::lock_guard<std::mutex> g(db_mu_);
  migrate_verify_schema(ws_);
}

MachinePeaks Verifier::peaks() { return peaks(oracle_.threads); }

MachinePeaks Verifier::peaks(int threads) {
  std::lock_guard<std::mutex> g(peaks_mu_);
  auto it = peaks_.find(threads);
  if (it != peaks_.end()) return it->second;
  MachinePeaks p;
  {
    std::lock_guard<std::mutex> d(db_mu_);
    p = machine_peaks(ws_, threads);
  }
  peaks_[threads] = p;
  return p;
}

MachinePeaks Verifier::remeasure_peaks(int threads) {
  std::lock_guard<std::mutex> g(peaks_mu_);
  if (remeasured_.count(threads)) return peaks_[threads];
  MachinePeaks p;
  {
    std::lock_guard<std::mutex> d(db_mu_);
    p = machine_peaks(ws_, threads, true);
  }
  remeasured_.insert(threads);
  peaks_[threads] = p;
  return p;
}

std::vector<Reference> Verifier::references(const TaskInfo& task, int seeds) {
  std::vector<Reference> refs;
  for (int s = 0; s < seeds; ++s) {
    std::mutex* m;
    {
      std::lock_guard<std::mutex> g(ref_mu_);
      auto& slot = ref_locks_[task.content_hash + "/" + std::to_string(s)];
      if (!slot) slot = std::make_unique<std::mutex>();
      m = slot.get();
    }
    std::lock_guard<std::mutex> g(*m);  // one oracle run per (task, seed), even across threads
    refs.push_back(oracle_reference(ws_, task, s, oracle_));
  }
  return refs;
}

json verdict_key_options(const VerifyOptions& o) {
  return {{"backend", o.backend},
          {"seeds", o.seeds},
          {"atol", o.atol},
          {"rtol", o.rtol},
          {"rel_norm_bound", o.rel_norm_bound},
          {"threads", o.threads},
          {"compile_timeout_s", o.compile_timeout_s},
          {"run_timeout_s", o.run_timeout_s},
          {"address_space_mb", o.address_space_mb},
          {"timing_budget_ms", o.timing_budget_ms},
          {"timing_max_trials", o.timing_max_trials},
          {"too_fast_fraction", o.too_fast_fraction},
          {"static_source_gate", o.static_source_gate},
          {"instruction_scan", o.instruction_scan},
          {"edge_set", o.edge_set},
          {"second_shape", o.second_shape},
          {"jailed", !unsafe_no_jail()}};
}

std::string Verifier::cache_key(const TaskInfo& task, const std::string& source,
                                const VerifyOptions& opt) const {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(opt.backend);
  } catch (const UsageError&) {
    // A name make_backend does not know: verify() reports that itself, before anything is cached.
  }
  return cache_key(task, source, opt, backend.get());
}

std::string Verifier::cache_key(const TaskInfo& task, const std::string& source,
                                const VerifyOptions& opt, const Backend* backend) const {
  // v2: the parent-driven protocol (edge-case and second-shape sets, checked timed calls).
  json k = {{"v", 2},
            {"task", task.content_hash},
            {"oracle", oracle_hash()},
            {"max_elements", oracle_.max_elements},
            {"max_gflop", oracle_.max_gflop},
            {"oracle_threads", oracle_.threads},
            // The eager time in the verdict was measured under this torch and BLAS.
            {"eager_baseline", eager_baseline(ws_, oracle_).key()},
            {"timing_runs", oracle_.timing_runs},
            {"source", sha256_hex(source)},
            {"toolchain", backend ? toolchain_fingerprint(*backend) : ""},
            {"options", verdict_key_options(opt)}};
  return sha256_hex(k.dump());
}

ExtraSets Verifier::extra_sets(const TaskInfo& task, int seeds) {
  std::mutex* m;
  {
    std::lock_guard<std::mutex> g(ref_mu_);
    auto& slot = ref_locks_[task.content_hash + "/sets"];
    if (!slot) slot = std::make_unique<std::mutex>();
    m = slot.get();
  }
  std::lock_guard<std::mutex> g(*m);  // one oracle run per task, even across threads
  return oracle_extra_sets(ws_, task, seeds, kVariantSets, oracle_);
}

// The gates, in order (docs/architecture.md §6). Each records its outcome in the verdict and
// returns false when the verification ends there.
namespace {

size_t correctness_sets(const std::vector<TrialSet>& sets) {
  return std::count_if(sets.begin(), sets.end(), [](const TrialSet& t) { return t.correctness; });
}

// Gate 1a: the source, before anything is compiled.
bool source_gate(Judge& j, const Backend& backend, const std::string& source, const VerifyOptions& opt) {
  if (source.find_first_not_of(" \t\r\n") == std::string::npos)
    return j.fail(Gate::StaticHack, Category::NoCode, "no code: the answer held no kernel source");
  if (opt.static_source_gate)
    if (auto bad = backend.static_check(source))
      return j.fail(Gate::StaticHack, Category::HackStatic, *bad);
  return true;
}

// Gate 2 (compile, in a private folder with time and memory limits), then gate 1b (what the
// library exports, defines and imports) and whether this machine can run it.
bool compile_gate(Judge& j, const Backend& backend, const std::string& source,
                  const VerifyOptions& opt, const fs::path& dir, CompileResult& cr) {
  cr = backend.compile(source, dir, opt.compile_timeout_s);
  j.v.metrics["compile_s"] = cr.wall_s;
  if (!cr.notes.empty()) j.v.metrics["compile_notes"] = cr.notes;
  if (!cr.ok) {
    if (opt.static_source_gate) j.pass(Gate::StaticHack, "source rules");
    return j.fail(Gate::Compile, Category::Compile, cr.feedback);
  }
  if (auto bad = backend.check_artifact(cr.artifact)) {
    j.v.compiled = true;
    return j.fail(Gate::StaticHack, Category::HackStatic, *bad);
  }
  // Every native library (cpu, ascendc, the CUDA host side): no instruction a kernel never
  // needs, however it was spelled in the source.
  if (opt.instruction_scan && cr.artifact.extension() == ".so")
    if (auto bad = check_instructions(cr.artifact)) {
      j.v.compiled = true;
      return j.fail(Gate::StaticHack, Category::HackStatic, *bad);
    }
  j.pass(Gate::StaticHack, "source and symbols clean");
  j.pass(Gate::Compile, fmt::format("{:.2f} s", cr.wall_s));
  j.v.compiled = true;
  if (auto why = backend.device_unavailable())
    return j.fail(Gate::Correctness, Category::NoDevice,
                  "compiled and statically checked; correctness and timing skipped: " + *why);
  return true;
}

// The seeds' sets (correctness and timing), then the edge-case, second-shape and variant sets.
std::vector<TrialSet> trial_sets(const std::vector<Reference>& refs, const ExtraSets& extra,
                                 const VerifyOptions& opt) {
  std::vector<TrialSet> sets;
  for (size_t s = 0; s < refs.size(); ++s) {
    sets.push_back(trial_set(refs[s], fmt::format("seed {}", s), fmt::format("seed {}", s)));
    sets.back().correctness = sets.back().timing = true;
  }
  for (const auto& [name, ref] : extra.sets) {
    if ((name == "edge" && !opt.edge_set) || (name == "shape2" && !opt.second_shape)) continue;
    if (name == "edge") {
      sets.push_back(trial_set(ref, "the edge-case inputs",
                               "the edge-case inputs (seed 0 with +-0, subnormals, large "
                               "magnitudes and NaN where PyTorch propagates it)"));
      sets.back().correctness = true;
    } else if (name == "shape2") {
      const auto& sh = ref.abi.empty() ? std::vector<int64_t>{} : ref.abi[0].shape;
      sets.push_back(trial_set(ref, "the second shape",
                               "the second shape (in.0 " + shape_text(sh) +
                                   ", odd extents: read every size from the tensors' shapes "
                                   "and handle the tail of every loop)"));
      sets.back().correctness = true;
    } else {
      sets.push_back(trial_set(ref, name, name));
      sets.back().timing = same_input_shapes(sets.back(), sets[0]);
      sets.back().base = ref.meta.value("base_seed", -1);
    }
  }
  return sets;
}

// The trial sets of recent verifications, read once per process: a run verifies each task many
// times, and reading its references (every set's inputs and outputs: hundreds of MB for a large
// task) was a quarter of a verification's time (bench_verify). Keyed by the reference files'
// paths and times (the oracle writes each once, in a folder named by the task's content and the
// oracle's options); at most kSetCacheBytes kept, the least recently used dropped first.
using SharedSets = std::shared_ptr<const std::vector<TrialSet>>;
constexpr size_t kSetCacheBytes = size_t{1} << 30;

SharedSets cached_trial_sets(const std::vector<Reference>& refs, const ExtraSets& extra,
                             const VerifyOptions& opt) {
  std::string key = fmt::format("edge={} shape2={}\n", opt.edge_set, opt.second_shape);
  auto add = [&](const std::string& name, const Reference& r) {
    std::error_code ec;
    auto t = fs::last_write_time(r.tensors_path, ec).time_since_epoch().count();
    key += fmt::format("{}={}@{}\n", name, r.tensors_path.string(), ec ? 0 : t);
  };
  for (const auto& r : refs) add("seed", r);
  for (const auto& [name, r] : extra.sets) add(name, r);
  static std::mutex mu;
  static std::list<std::tuple<std::string, SharedSets, size_t>> lru;  // most recent first
  {
    std::lock_guard lk(mu);
    for (auto it = lru.begin(); it != lru.end(); ++it)
      if (std::get<0>(*it) == key) {
        lru.splice(lru.begin(), lru, it);
        return std::get<1>(lru.front());
      }
  }
  auto sets = std::make_shared<const std::vector<TrialSet>>(trial_sets(refs, extra, opt));
  size_t bytes = 0;
  for (const auto& t : *sets) {
    for (const auto& x : t.inputs) bytes += x.nbytes();
    for (const auto& x : t.outputs) bytes += x.nbytes();
  }
  std::lock_guard lk(mu);
  lru.emplace_front(key, sets, bytes);
  size_t total = 0;  // the newest is kept whatever its size: it is in use
  for (auto it = lru.begin(); it != lru.end();) {
    if (it != lru.begin() && total + std::get<2>(*it) > kSetCacheBytes) {
      it = lru.erase(it);
      continue;
    }
    total += std::get<2>(*it);
    ++it;
  }
  return sets;
}

// Gates 3-5 run in one sandboxed runner process that the parent drives (verify/trial.h).
TrialOutcome run_sandboxed(const Backend& backend, const CompileResult& cr, const Reference& r0,
                           const std::vector<TrialSet>& sets, int seeds, const VerifyOptions& opt,
                           const fs::path& dir, RunnerBounds& bounds) {
  std::vector<std::string> abi;
  for (const auto& t : r0.abi) abi.push_back(t.name);
  RunnerLimits lim = runner_limits(backend.runner(dir), opt);
  TrialOptions topt;
  topt.tol = task_tolerance(r0, opt);
  topt.timing_budget_ms = opt.timing_budget_ms;
  topt.timing_max_trials = opt.timing_max_trials;
  topt.threads = opt.threads;
  topt.modeled = backend.modeled_latency();
  bounds = {opt.run_timeout_s, opt.address_space_mb, lim.output_cap};
  return run_trial(cr.artifact.string(), abi, sets, seeds, topt, lim, dir.string());
}

// The runner's ending, classified (verify/runner_outcome.h), with the gates before the
// failing one passed.
bool runner_gates(Judge& j, const TrialOutcome& out, const RunnerBounds& bounds, size_t n_sets) {
  const ProcessResult& p = out.run.process;
  j.v.metrics["runner_s"] = p.wall_s;
  j.v.metrics["jailed"] = out.run.jailed;  // false only under --unsafe-no-jail
  j.v.metrics["cpu_s"] = p.cpu_s;
  j.v.metrics.update(out.metrics);
  auto failure = classify_runner_outcome(out, bounds);
  if (!failure) return true;
  if (failure->load_error) {  // nothing ran: the compile gate is where it failed
    j.v.compiled = false;
    j.v.gates.clear();
    j.pass(Gate::StaticHack, "source and symbols clean");
  }
  if (!failure->load_error && failure->gate > Gate::Correctness)
    j.pass(Gate::Correctness, fmt::format("{} input sets match", n_sets));
  if (!failure->load_error && failure->gate > Gate::DynamicHack)
    j.pass(Gate::DynamicHack, "no cheat detected");
  return j.fail(failure->gate, failure->category, failure->feedback);
}

// A median under the roofline floors is skipped work; both messages say why it is impossible.
// A modeled latency is judged by its device time: the launch cost it adds is no work, and a
// kernel charged nothing would otherwise pass at exactly the launch cost.
bool too_fast_gate(Judge& j, const TrialOutcome& out, const Reference& r0, const MachinePeaks& pk,
                   const RooflineFloors& fl, const VerifyOptions& opt) {
  j.v.metrics["floor_ms"] = fl.bytes_ms;
  j.v.metrics["flop_floor_ms"] = fl.flops_ms;
  double t = out.median_ms;
  const char* what = "a median";
  if (auto m = out.metrics.find("modeled"); m != out.metrics.end() && m->is_object()) {
    size_t launches = m->value("launches", nlohmann::json::array()).size();
    t = std::max(0.0,
                 out.median_ms - static_cast<double>(launches) * m->value("launch_us", 0.0) * 1e-3);
    what = "a modeled device time (launch cost excluded)";
    j.v.metrics["device_ms"] = t;
  }
  if (t < opt.too_fast_fraction * fl.bytes_ms)
    return j.fail(Gate::DynamicHack, Category::TooFast,
                  fmt::format("{} of {:.4g} ms is impossible: moving the task's {} bytes "
                              "takes at least {:.4g} ms at this machine's {:.1f} GB/s; the kernel "
                              "must do the whole computation on every call",
                              what, t, r0.bytes, fl.bytes_ms, pk.floor_bandwidth(r0.bytes)));
  // FLOPs get a wider margin than bytes: the count is an estimate (Winograd or Strassen do
  // fewer).
  if (t < 0.25 * opt.too_fast_fraction * fl.flops_ms)
    return j.fail(Gate::DynamicHack, Category::TooFast,
                  fmt::format("{} of {:.4g} ms is impossible: the task's {:.4g} GFLOP take "
                              "at least {:.4g} ms at this machine's {:.1f} GFLOP/s (16x faster "
                              "than that is rejected); the kernel must do the whole computation "
                              "on every call (no caching of results)",
                              what, t, r0.flops * 1e-9, fl.flops_ms, pk.gflops));
  j.pass(Gate::DynamicHack, fmt::format("inputs untouched, no late writes, {} timed calls "
                                        "checked, times confirmed, above the roofline floors",
                                        out.checked_calls));
  return true;
}

// Gate 5: the latency and what it is worth (eager, bandwidth, roofline), in the feedback.
void latency_gate(Judge& j, const Backend& backend, const TrialOutcome& out, const Reference& r0,
                  const MachinePeaks& pk, size_t n_sets) {
  Verdict& v = j.v;
  v.latency_ms = out.median_ms;
  v.latency_iqr_ms = out.iqr_ms;
  v.timed_calls = out.trials;
  // A modeled latency (a cost model, not a clock) is compared with a modeled eager baseline.
  const auto modeled_eager = backend.modeled_eager(r0);
  v.eager_ms = modeled_eager ? modeled_eager->ms : r0.eager_ms;
  std::string eager_basis;  // what a modeled eager time rests on, in the feedback
  if (modeled_eager) {
    v.metrics["eager_basis"] = modeled_eager->basis;
    if (!modeled_eager->fallback.empty()) v.metrics["eager_fallback"] = modeled_eager->fallback;
    eager_basis = modeled_eager->basis;
  }
  double sec = out.median_ms * 1e-3;
  v.gbps = sec > 0 ? static_cast<double>(r0.bytes) / sec / 1e9 : 0;
  v.gflops = sec > 0 ? static_cast<double>(r0.flops) / sec / 1e9 : 0;
  v.roofline_fraction = roofline_fraction(pk, r0.bytes, r0.flops, out.median_ms);
  if (v.roofline_fraction > 1) {  // still above the peaks after they were measured again
    v.metrics["roofline_fraction_raw"] = v.roofline_fraction;
    v.metrics["roofline_note"] =
        "faster than the measured peaks allow: the peaks are low (re-measure them with "
        "`evokernel doctor --remeasure-peaks` on an idle machine)";
    v.roofline_fraction = 1;
  }
  const double speedup = out.median_ms > 0 ? v.eager_ms / out.median_ms : 0;
  v.metrics["min_ms"] = out.min_ms;
  v.metrics["speedup_vs_eager"] = speedup;
  v.metrics["peak_gbps"] = pk.gbps;
  v.metrics["peak_gflops"] = pk.gflops;
  v.feasible = true;
  v.category = Category::Ok;
  v.gate = Gate::Latency;
  const nlohmann::json modeled = out.metrics.value("modeled", nlohmann::json());
  // The roofline's basis goes with its fraction: a model cannot aim at a bare percentage.
  if (modeled.is_null())
    v.feedback = fmt::format(
        "correct on {} input sets; median {:.4g} ms (IQR {:.3g} ms, {} calls), PyTorch eager "
        "{:.4g} ms ({:.2f}x); {:.1f} GB/s, {:.2f} GFLOP/s, {:.0f}% of the roofline (the task "
        "moves {:.3g} MB and does {:.3g} GFLOP; this machine's peaks on {} thread(s): {:.1f} "
        "GB/s at that working set, {:.1f} GFLOP/s)",
        n_sets, v.latency_ms, v.latency_iqr_ms, v.timed_calls, v.eager_ms, speedup, v.gbps,
        v.gflops, 100 * v.roofline_fraction, static_cast<double>(r0.bytes) * 1e-6,
        static_cast<double>(r0.flops) * 1e-9, pk.threads, pk.roofline_bandwidth(r0.bytes),
        pk.gflops);
  else  // a cost model, not a clock: say so, with its own figures
    v.feedback = fmt::format("correct on {} input sets; modeled latency {:.4g} ms ({:.0f} cycles "
                             "of the slowest core at {:.2f} GHz, {} launch(es)), modeled PyTorch "
                             "eager {:.4g} ms ({}) ({:.2f}x); {:.0f}% of the roofline",
                             n_sets, v.latency_ms, modeled.value("cycles", 0.0),
                             modeled.value("clock_ghz", 0.0),
                             modeled.value("launches", nlohmann::json::array()).size(), v.eager_ms,
                             eager_basis.empty() ? "measured" : eager_basis, speedup, 100 * v.roofline_fraction);
  v.diagnosis = diagnose({.median_ms = out.median_ms,
                          .bytes = r0.bytes,
                          .flops = r0.flops,
                          .peaks = pk,
                          .device_peaks = out.run.report.device_gbps > 0,
                          .modeled = modeled,
                          .compile_notes = v.metrics.value("compile_notes", "")});
  if (!v.diagnosis.empty()) v.feedback += "\nDiagnosis, " + render_diagnosis(v.diagnosis);
  j.pass(Gate::Latency, fmt::format("{:.4g} ms median over {} calls", v.latency_ms, v.timed_calls));
}

}  // namespace

// The peaks a median is judged against. An accelerator's runner measures its own device (the
// CPU's peaks would call every GPU kernel impossibly fast). On the CPU, a median under a floor,
// or above 100% of the roofline, is either skipped work or peaks measured low (a busy machine
// when they were taken): the peaks are measured again, once per process, raised only, before
// the kernel is called impossible.
MachinePeaks Verifier::judging_peaks(const TrialOutcome& out, const Reference& r0, const VerifyOptions& opt) {
  const RunnerReport& rep = out.run.report;
  if (rep.device_gbps > 0) return MachinePeaks{.gbps = rep.device_gbps, .gflops = rep.device_gflops};
  MachinePeaks pk = peaks(opt.threads);
  RooflineFloors fl = roofline_floors(pk, r0.bytes, r0.flops);
  if (out.median_ms < opt.too_fast_fraction * std::max(fl.bytes_ms, 0.25 * fl.flops_ms) ||
      roofline_fraction(pk, r0.bytes, r0.flops, out.median_ms) > 1)
    pk = remeasure_peaks(opt.threads);
  return pk;
}

Verdict Verifier::verify(const TaskInfo& task, const std::string& source, const VerifyOptions& opt) {
  if (opt.backend.empty())
    throw UsageError("no backend given to the verifier (VerifyOptions::backend is empty): name "
                     "one of " + backend_help());
  auto t0 = std::chrono::steady_clock::now();
  auto backend = make_backend(opt.backend);  // UsageError for a name it does not know
  const std::string key = cache_key(task, source, opt, backend.get());
  if (opt.use_cache) {
    std::lock_guard<std::mutex> g(db_mu_);
    if (auto v = cached_verdict(ws_, key)) return *v;
  }
  Judge j;
  // Where the verification's time goes (with the runner's phases, trial.cpp): bench_verify.
  json cost = json::object();
  auto lap = [&, t = std::chrono::steady_clock::now()](const char* phase) mutable {
    cost[phase] = seconds_since(t);
    t = std::chrono::steady_clock::now();
  };
  lap("cache_key");
  auto finish = [&]() {
    j.v.wall_s = seconds_since(t0);
    j.v.metrics["cost_s"].update(cost);
    j.v.metrics["cost_s"]["total"] = j.v.wall_s;
    if (opt.use_cache && !is_infra(j.v.category)) {
      std::lock_guard<std::mutex> g(db_mu_);
      store_verdict(ws_, key, j.v);
    }
    return j.v;
  };
  try {
    bool ok = source_gate(j, *backend, source, opt);
    lap("source_rules");
    if (!ok) return finish();
    TempDir dir("evk-verify-");
    CompileResult cr;
    ok = compile_gate(j, *backend, source, opt, dir.path(), cr);
    lap("compile_and_symbols");
    cost["compiler"] = cr.wall_s;
    if (!ok) return finish();

    std::vector<Reference> refs;
    SharedSets shared;
    try {
      refs = references(task, opt.seeds);
      shared = cached_trial_sets(refs, extra_sets(task, opt.seeds), opt);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      j.fail(Gate::Correctness, Category::Infra,
             std::string("no reference for the task: ") + e.what());
      return finish();
    }
    lap("references");
    const std::vector<TrialSet>& sets = *shared;
    const Reference& r0 = refs[0];
    RunnerBounds bounds;
    TrialOutcome out = run_sandboxed(*backend, cr, r0, sets, static_cast<int>(refs.size()), opt,
                                     dir.path(), bounds);
    lap("runner");
    if (!runner_gates(j, out, bounds, sets.size())) return finish();
    j.pass(Gate::Correctness, fmt::format("{} input sets match (max abs err {:.3g})",
                                          correctness_sets(sets), j.v.metrics.value("max_abs_err", 0.0)));

    const MachinePeaks pk = judging_peaks(out, r0, opt);
    if (!too_fast_gate(j, out, r0, pk, roofline_floors(pk, r0.bytes, r0.flops), opt)) return finish();
    latency_gate(j, *backend, out, r0, pk, correctness_sets(sets));
    return finish();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    j.v.feasible = false;
    j.v.category = Category::Infra;
    j.v.feedback = std::string("the verifier failed (not the kernel's fault): ") + e.what();
    j.v.wall_s = seconds_since(t0);
    return j.v;
  }
}

std::vector<Verdict> verify_all(Verifier& v,
                                const std::vector<std::pair<const TaskInfo*, std::string>>& jobs,
                                const VerifyOptions& opt, int jobs_n) {
  std::vector<Verdict> out(jobs.size());
  parallel_for(jobs.size(), jobs_n, [&](size_t i) {
    try {
      out[i] = v.verify(*jobs[i].first, jobs[i].second, opt);
    } catch (const std::exception& e) {  // one job's fault is its verdict, not the batch's
      out[i].feasible = false;
      out[i].category = Category::Infra;
      out[i].feedback = e.what();
    }
  });
  return out;
}

}  // namespace evk
