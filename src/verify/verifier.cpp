#include "verify/verifier.h"

#include <fmt/format.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "backends/backend.h"
#include "core/config.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/workspace.h"
#include "verify/compare.h"
#include "verify/runner_client.h"
#include "verify/temp_dir.h"
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
  if (o.seeds < 1) throw UsageError("verify.seeds must be at least 1");
  if (o.threads < 1) throw UsageError("verify.threads must be at least 1");
  return o;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Builds the verdict gate by gate; the first failure is final.
struct Judge {
  Verdict v;
  bool fail(Gate g, const std::string& category, const std::string& feedback) {
    v.feasible = false;
    v.gate = g;
    v.category = category;
    v.feedback = feedback;
    std::string line = feedback.substr(0, feedback.find('\n'));
    v.gates.push_back({gate_name(g), false, line.substr(0, 300)});
    return false;
  }
  void pass(Gate g, const std::string& detail) { v.gates.push_back({gate_name(g), true, detail}); }
};

std::string tail(const std::string& s, size_t n) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

// Reads record `name` of the outputs file: one buffer per output.
std::vector<std::vector<uint8_t>> read_record(const fs::path& file, const RunnerJob& job,
                                              const std::vector<std::string>& records,
                                              const std::string& name) {
  size_t k = 0;
  while (k < records.size() && records[k] != name) ++k;
  if (k == records.size()) throw Error("the runner wrote no record " + name);
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(k * job.record_bytes()));
  std::vector<std::vector<uint8_t>> out;
  for (const auto& o : job.outputs) {
    out.emplace_back(o.nbytes());
    in.read(reinterpret_cast<char*>(out.back().data()), static_cast<std::streamsize>(o.nbytes()));
    if (!in) throw Error("the outputs file is shorter than the runner reported");
  }
  return out;
}

struct SeedRefs {
  std::vector<Tensor> outs;  // reference outputs, ABI output order
};

SeedRefs load_outputs(const Reference& r) {
  SafetensorsFile f = read_safetensors(r.tensors_path);
  SeedRefs s;
  for (const auto& o : r.outputs) s.outs.push_back(f.tensors.at(o.name));
  return s;
}

bool same_bytes(const std::vector<std::vector<uint8_t>>& a, const std::vector<std::vector<uint8_t>>& b) {
  return a == b;
}

bool refs_equal(const SeedRefs& a, const SeedRefs& b) {
  for (size_t i = 0; i < a.outs.size(); ++i)
    if (a.outs[i].data != b.outs[i].data) return false;
  return true;
}

// All outputs of one call against one seed's references: nullopt when all pass, else the
// feedback; `worst` collects the largest errors seen.
std::optional<std::string> check_call(const RunnerJob& job, const SeedRefs& ref,
                                      const std::vector<std::vector<uint8_t>>& got,
                                      const Tolerance& tol, json& worst) {
  for (size_t i = 0; i < job.outputs.size(); ++i) {
    CompareResult c = compare_output(ref.outs[i], got[i].data(), tol);
    worst["max_abs_err"] = std::max(worst.value("max_abs_err", 0.0), c.max_abs);
    worst["max_rel_err"] = std::max(worst.value("max_rel_err", 0.0), c.max_rel);
    worst["rel_err_norm"] = std::max(worst.value("rel_err_norm", 0.0), c.rel_norm);
    if (!c.ok) return c.describe(job.outputs[i].name, job.outputs[i].shape);
  }
  return std::nullopt;
}

std::string phase_gate_text(const std::string& phase) {
  return phase.empty() ? "loading" : phase;
}

}  // namespace

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

std::string Verifier::cache_key(const TaskInfo& task, const std::string& source,
                                const VerifyOptions& opt) const {
  json k = {{"v", 1},
            {"task", task.content_hash},
            {"max_elements", oracle_.max_elements},
            {"backend", opt.backend},
            {"source", sha256_hex(source)},
            {"seeds", opt.seeds},
            {"atol", opt.atol},
            {"rtol", opt.rtol},
            {"rel_norm_bound", opt.rel_norm_bound},
            {"threads", opt.threads},
            {"static_source_gate", opt.static_source_gate}};
  return sha256_hex(k.dump());
}

Verdict Verifier::verify(const TaskInfo& task, const std::string& source, const VerifyOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  std::string key = cache_key(task, source, opt);
  if (opt.use_cache) {
    std::lock_guard<std::mutex> g(db_mu_);
    if (auto v = cached_verdict(ws_, key)) return *v;
  }
  Judge j;
  auto finish = [&]() {
    j.v.wall_s = seconds_since(t0);
    if (opt.use_cache && !is_infra(j.v.category)) {
      std::lock_guard<std::mutex> g(db_mu_);
      store_verdict(ws_, key, j.v);
    }
    return j.v;
  };
  try {
    auto backend = make_backend(opt.backend);

    // Gate 1a: the source.
    if (source.find_first_not_of(" \t\r\n") == std::string::npos) {
      j.fail(Gate::StaticHack, "no_code", "no code: the answer held no kernel source");
      return finish();
    }
    if (opt.static_source_gate)
      if (auto bad = backend->static_check(source)) {
        j.fail(Gate::StaticHack, "hack_static", *bad);
        return finish();
      }

    // Gate 2: compile, in a private folder with time and memory limits.
    TempDir dir("evk-verify-");
    CompileResult cr = backend->compile(source, dir.path(), opt.compile_timeout_s);
    j.v.metrics["compile_s"] = cr.wall_s;
    if (!cr.notes.empty()) j.v.metrics["compile_notes"] = cr.notes;
    if (!cr.ok) {
      if (opt.static_source_gate) j.pass(Gate::StaticHack, "source rules");
      j.fail(Gate::Compile, "compile", cr.feedback);
      return finish();
    }
    // Gate 1b: what the library exports, defines and imports.
    if (auto bad = backend->check_artifact(cr.artifact)) {
      j.v.compiled = true;
      j.fail(Gate::StaticHack, "hack_static", *bad);
      return finish();
    }
    j.pass(Gate::StaticHack, "source and symbols clean");
    j.pass(Gate::Compile, fmt::format("{:.2f} s", cr.wall_s));
    j.v.compiled = true;
    if (auto why = backend->device_unavailable()) {
      j.fail(Gate::Correctness, "no_device",
             "compiled and statically checked; correctness and timing skipped: " + *why);
      return finish();
    }

    // Gates 3-5 run in one sandboxed runner process; the verdict is decided here.
    std::vector<Reference> refs;
    try {
      refs = references(task, opt.seeds);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      j.fail(Gate::Correctness, "infra", std::string("no reference for the task: ") + e.what());
      return finish();
    }
    const Reference& r0 = refs[0];
    RunnerJob job;
    job.library = cr.artifact.string();
    for (const auto& r : refs) job.seed_files.push_back(r.tensors_path.string());
    for (const auto& t : r0.abi) job.abi.push_back(t.name);
    for (const auto& o : r0.outputs) job.outputs.push_back({o.name, o.dtype, o.shape});
    job.outputs_path = (dir.path() / "outputs.bin").string();
    job.timing_budget_ms = opt.timing_budget_ms;
    job.timing_max_trials = opt.timing_max_trials;
    RunnerSpec spec = backend->runner(dir.path());
    RunnerLimits lim;
    lim.executable = spec.executable;
    lim.env = spec.env;
    lim.timeout_s = opt.run_timeout_s;
    lim.address_space_mb =
        spec.limit_address_space ? std::max(opt.address_space_mb, spec.min_address_space_mb) : 0;
    lim.threads = opt.threads;
    RunnerRun run = run_runner(job, lim, dir.path().string());
    const ProcessResult& p = run.process;
    const RunnerReport& rep = run.report;
    j.v.metrics["runner_s"] = p.wall_s;
    std::string where = phase_gate_text(rep.last_phase);
    Gate run_gate = rep.last_phase == "timing" ? Gate::Latency
                    : (rep.last_phase == "reuse" || rep.last_phase == "mixed") ? Gate::DynamicHack
                                                                                : Gate::Correctness;
    auto pass_until = [&](Gate g) {
      if (g > Gate::Correctness) j.pass(Gate::Correctness, fmt::format("{} seeds match", opt.seeds));
      if (g > Gate::DynamicHack) j.pass(Gate::DynamicHack, "no cheat detected");
    };
    std::string stderr_tail = p.err.empty() ? "" : "\nstderr: " + tail(p.err, 600);

    if (!rep.forbidden_syscall.empty()) {
      pass_until(run_gate);
      j.fail(run_gate, "runtime_crash",
             fmt::format("the sandbox stopped the kernel at the forbidden system call {} (during "
                         "{}): kernels may not open sockets, start processes or programs, or "
                         "signal other processes",
                         rep.forbidden_syscall, where));
      return finish();
    }
    if (p.timed_out) {
      pass_until(run_gate);
      j.fail(run_gate, "timeout",
             fmt::format("the kernel did not finish within {:.0f} s (during {}): an infinite "
                         "loop, a deadlock, or far too slow for the task size",
                         opt.run_timeout_s, where));
      return finish();
    }
    if (p.err_truncated || p.out_truncated) {
      pass_until(run_gate);
      j.fail(run_gate, "runtime_crash",
             fmt::format("the kernel printed more than {} KiB (during {}): kernels must not print",
                         lim.output_cap >> 10, where));
      return finish();
    }
    if (p.term_signal) {
      pass_until(run_gate);
      std::string hint;
      if (p.term_signal == SIGXCPU) hint = " (CPU time limit: far too slow or an endless loop)";
      if (p.err.find("bad_alloc") != std::string::npos)
        hint = fmt::format(" (out of memory: the limit is {} MiB)", opt.address_space_mb);
      if (p.term_signal == SIGSEGV) hint = " (an out-of-bounds access or a stack overflow: check index arithmetic and large local arrays)";
      j.fail(run_gate, "runtime_crash",
             fmt::format("the kernel crashed: {} during {}{}{}", p.describe(), where, hint, stderr_tail));
      return finish();
    }
    if (!rep.load_error.empty()) {
      j.v.compiled = false;
      j.v.gates.clear();
      j.pass(Gate::StaticHack, "source and symbols clean");
      j.fail(Gate::Compile, "compile", "the library failed to load: " + rep.load_error);
      return finish();
    }
    if (p.exit_code != 0 || !rep.finished) {
      pass_until(run_gate);
      j.fail(run_gate, "runtime_crash",
             fmt::format("the process ended early ({}) during {}: kernels must return from "
                         "evk_forward{}",
                         p.describe(), where, stderr_tail));
      return finish();
    }
    if (!rep.exception.empty()) {
      Gate g = rep.failed_phase == "timing" || rep.failed_phase == "warm-up" ? Gate::Latency : Gate::Correctness;
      pass_until(g);
      bool oom = rep.exception.find("bad_alloc") != std::string::npos;
      j.fail(g, "runtime_crash",
             fmt::format("evk_forward threw {} (during {}){}", rep.exception, rep.failed_phase,
                         oom ? fmt::format(": the process may use at most {} MiB", opt.address_space_mb) : ""));
      return finish();
    }
    if (rep.failed_rc != 0) {
      Gate g = rep.failed_phase == "timing" || rep.failed_phase == "warm-up" ? Gate::Latency : Gate::Correctness;
      pass_until(g);
      j.fail(g, "runtime_crash",
             fmt::format("evk_forward returned {} (during {}); it must return 0 on success",
                         rep.failed_rc, rep.failed_phase));
      return finish();
    }

    // Gate 3: correctness, seed by seed, and replay detection (same outputs as an earlier seed).
    Tolerance tol{r0.atol >= 0 ? r0.atol : opt.atol, r0.rtol >= 0 ? r0.rtol : opt.rtol,
                  opt.rel_norm_bound};
    fs::path outs_file = job.outputs_path;
    std::vector<SeedRefs> seed_refs;
    std::vector<std::vector<std::vector<uint8_t>>> got;
    json worst = json::object();
    for (size_t s = 0; s < refs.size(); ++s) {
      seed_refs.push_back(load_outputs(refs[s]));
      got.push_back(read_record(outs_file, job, rep.records, fmt::format("seed{}", s)));
      if (auto bad = check_call(job, seed_refs[s], got[s], tol, worst)) {
        for (size_t e = 0; e < s; ++e)
          if (same_bytes(got[s], got[e]) && !refs_equal(seed_refs[s], seed_refs[e])) {
            j.fail(Gate::DynamicHack, "hack_dynamic",
                   fmt::format("the outputs for seed {} are byte-for-byte those of seed {} although "
                               "the inputs differ: results are cached or replayed across calls",
                               s, e));
            j.v.metrics.update(worst);
            return finish();
          }
        j.fail(Gate::Correctness, "mismatch", fmt::format("seed {}: {}", s, *bad));
        j.v.metrics.update(worst);
        return finish();
      }
    }
    j.v.metrics.update(worst);
    j.pass(Gate::Correctness, fmt::format("{} seeds match (max abs err {:.3g})", refs.size(),
                                          worst.value("max_abs_err", 0.0)));

    // Gate 4: dynamic anti-hack.
    auto hack = [&](const std::string& fb) {
      j.fail(Gate::DynamicHack, "hack_dynamic", fb);
      return finish();
    };
    if (!rep.input_mutated.empty())
      return hack("the kernel wrote to its inputs (" + rep.input_mutated + "): inputs are read-only");
    if (!rep.late_write.empty())
      return hack("the outputs changed after evk_forward returned (" + rep.late_write +
                  "): all work must finish before returning (no detached threads)");
    if (refs.size() >= 2) {
      auto reuse = read_record(outs_file, job, rep.records, "reuse");
      json ignore = json::object();
      if (auto bad = check_call(job, seed_refs[0], reuse, tol, ignore)) {
        bool replay = same_bytes(reuse, got.back());
        return hack(replay ? "called again on the same buffers holding new values, the kernel "
                             "returned the previous call's outputs: results are cached across "
                             "calls (keyed on pointers?)"
                           : "called again on the same buffers holding new values, the results "
                             "were wrong (" + *bad + "): is state kept across calls?");
      }
      if (rep.mixed_unchanged.value_or(false) && !refs_equal(seed_refs[0], seed_refs[1]))
        return hack("the outputs did not change when most input elements changed (only a few "
                    "elements were kept): results are cached keyed on a few input values");
    }
    for (size_t s = 0; s < refs.size() && rep.trials > 0; ++s) {
      auto post = read_record(outs_file, job, rep.records, fmt::format("post{}", s));
      json ignore = json::object();
      if (auto bad = check_call(job, seed_refs[s], post, tol, ignore))
        return hack(fmt::format("the results were wrong after the timed calls (seed {}: {}): the "
                                "kernel behaves differently when called repeatedly",
                                s, *bad));
    }
    // An accelerator's runner measures its own device; the CPU's peaks would call every GPU
    // kernel impossibly fast.
    MachinePeaks pk = rep.device_gbps > 0 ? MachinePeaks{rep.device_gbps, 0, 0, rep.device_gflops, 1}
                                          : peaks(opt.threads);
    double bw = pk.bandwidth_for(r0.bytes);
    double floor_ms = bw > 0 ? static_cast<double>(r0.bytes) / (bw * 1e6) : 0;
    j.v.metrics["floor_ms"] = floor_ms;
    if (rep.median_ms < opt.too_fast_fraction * floor_ms) {
      j.fail(Gate::DynamicHack, "too_fast",
             fmt::format("a median of {:.4g} ms is impossible: moving the task's {} bytes takes "
                         "at least {:.4g} ms at this machine's {:.1f} GB/s; the kernel must do "
                         "the whole computation on every call",
                         rep.median_ms, r0.bytes, floor_ms, bw));
      return finish();
    }
    j.pass(Gate::DynamicHack, "inputs untouched, no late writes, no caching, above the roofline floor");

    // Gate 5: latency.
    Verdict& v = j.v;
    v.latency_ms = rep.median_ms;
    v.latency_iqr_ms = rep.iqr_ms;
    v.timed_calls = rep.trials;
    // A modeled latency (a cost model, not a clock) is compared with a modeled eager baseline.
    v.eager_ms = backend->modeled_eager_ms(r0).value_or(r0.eager_ms);
    if (!rep.modeled.is_null()) v.metrics["modeled"] = rep.modeled;
    double sec = rep.median_ms * 1e-3;
    v.gbps = sec > 0 ? static_cast<double>(r0.bytes) / sec / 1e9 : 0;
    v.gflops = sec > 0 ? static_cast<double>(r0.flops) / sec / 1e9 : 0;
    double attainable_ms = std::max(bw > 0 ? r0.bytes / (bw * 1e6) : 0,
                                    pk.gflops > 0 ? r0.flops / (pk.gflops * 1e6) : 0);
    v.roofline_fraction = rep.median_ms > 0 ? attainable_ms / rep.median_ms : 0;
    v.metrics["min_ms"] = rep.min_ms;
    v.metrics["speedup_vs_eager"] = rep.median_ms > 0 ? v.eager_ms / rep.median_ms : 0;
    v.metrics["peak_gbps"] = pk.gbps;
    v.metrics["peak_gflops"] = pk.gflops;
    v.feasible = true;
    v.category = "ok";
    v.gate = Gate::Latency;
    v.feedback = fmt::format("correct on {} seeds; median {:.4g} ms (IQR {:.3g} ms, {} calls), "
                             "PyTorch eager {:.4g} ms ({:.2f}x); {:.1f} GB/s, {:.2f} GFLOP/s, {:.0f}% "
                             "of the roofline",
                             refs.size(), v.latency_ms, v.latency_iqr_ms, v.timed_calls, v.eager_ms,
                             v.metrics["speedup_vs_eager"].get<double>(), v.gbps, v.gflops,
                             100 * v.roofline_fraction);
    if (!rep.modeled.is_null())  // a cost model, not a clock: say so, with its own figures
      v.feedback = fmt::format("correct on {} seeds; modeled latency {:.4g} ms ({:.0f} cycles of the "
                               "slowest core at {:.2f} GHz, {} launch(es)), modeled PyTorch eager "
                               "{:.4g} ms ({:.2f}x); {:.0f}% of the roofline",
                               refs.size(), v.latency_ms, rep.modeled.value("cycles", 0.0),
                               rep.modeled.value("clock_ghz", 0.0),
                               rep.modeled.value("launches", nlohmann::json::array()).size(), v.eager_ms,
                               v.metrics["speedup_vs_eager"].get<double>(), 100 * v.roofline_fraction);
    j.pass(Gate::Latency, fmt::format("{:.4g} ms median over {} calls", v.latency_ms, v.timed_calls));
    return finish();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    j.v.feasible = false;
    j.v.category = "infra";
    j.v.feedback = std::string("the verifier failed (not the kernel's fault): ") + e.what();
    j.v.wall_s = seconds_since(t0);
    return j.v;
  }
}

std::vector<Verdict> verify_all(Verifier& v,
                                const std::vector<std::pair<const TaskInfo*, std::string>>& jobs,
                                const VerifyOptions& opt, int jobs_n) {
  std::vector<Verdict> out(jobs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      try {
        out[i] = v.verify(*jobs[i].first, jobs[i].second, opt);
      } catch (const std::exception& e) {
        out[i].feasible = false;
        out[i].category = "infra";
        out[i].feedback = e.what();
      }
    }
  };
  int n = std::max(1, std::min<int>(jobs_n, static_cast<int>(jobs.size())));
  std::vector<std::thread> pool;
  for (int k = 1; k < n; ++k) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace evk
