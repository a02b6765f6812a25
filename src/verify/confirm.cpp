#include "verify/confirm.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "backends/backend.h"
#include "core/cpu_lease.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/temp_dir.h"
#include "core/workspace.h"
#include "verify/compare.h"
#include "verify/runner_session.h"
#include "verify/trial.h"
#include "verify/verifier.h"

namespace evk {
namespace {

double quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  double x = p * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(x), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (x - static_cast<double>(lo));
}

Confirmation failed(const std::string& why) {
  Confirmation c;
  c.note = why;
  return c;
}

// One of the two kernels: its compiled library and its runner.
struct Side {
  std::string name;
  TempDir dir{"evk-confirm-"};
  std::string library;
  std::unique_ptr<RunnerSession> session;
  std::vector<double> per_call_ms;
};

// The best and the candidate. Whichever way a measurement stops, each started runner is told
// to quit and is reaped when this goes out of scope.
struct Sides {
  Side side[2];
  Sides() {
    side[0].name = "the best";
    side[1].name = "the candidate";
  }
  ~Sides() {
    for (auto& s : side) {
      if (!s.session) continue;
      try {
        if (!s.session->ended()) (void)s.session->quit();
        (void)s.session->finish();
      } catch (const std::exception&) {  // the session's own destructor still ends the runner
      }
    }
  }
  Side* begin() { return side; }
  Side* end() { return side + 2; }
};

// The one input set both sides are timed on: its reference outputs, tolerance and the slots a
// batch may fill. Not copied: session_set points into set.
struct Bench {
  TrialSet set;
  std::vector<std::string> abi;
  SessionSet session_set;
  Tolerance tol;
  int slots = 1;

  Bench(const Reference& ref, const VerifyOptions& opt)
      : set(trial_set(ref, "seed 0", "seed 0")), tol(task_tolerance(ref, opt)) {
    for (const auto& t : ref.abi) abi.push_back(t.name);
    for (const auto& x : set.inputs) session_set.inputs.push_back(&x);
    session_set.outputs = set.specs;
    RunnerSet probe;
    probe.outputs = set.specs;
    slots = static_cast<int>(
        std::clamp<uint64_t>((256ull << 20) / std::max<size_t>(probe.record_bytes(), 1), 1, 64));
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;
};

// Compiles both sources into their sides; the reason when one cannot be measured.
std::optional<std::string> compile_sides(Backend& backend, Sides& sides,
                                         const std::string* sources[2], const VerifyOptions& opt) {
  for (int k = 0; k < 2; ++k) {
    Side& s = sides.side[k];
    CompileResult cr = backend.compile(*sources[k], s.dir.path(), opt.compile_timeout_s);
    if (!cr.ok) return s.name + " no longer compiles: " + cr.feedback.substr(0, 300);
    if (auto bad = backend.check_artifact(cr.artifact)) return s.name + ": " + *bad;
    s.library = cr.artifact.string();
  }
  return std::nullopt;
}

// Starts both runners on the same CPUs (only one of them runs at any moment) and waits until
// each holds the set; the reason when one ended first.
std::optional<std::string> start_sides(Backend& backend, Sides& sides, const Bench& b,
                                       const CpuLease& lease, const VerifyOptions& opt) {
  for (auto& s : sides) {
    RunnerLimits lim = runner_limits(backend.runner(s.dir.path()), opt);
    lim.cpus = lease.cpus();
    s.session = std::make_unique<RunnerSession>(s.library, b.abi,
                                                std::vector<SessionSet>{b.session_set}, b.slots);
    s.session->start(lim, s.dir.path().string());
  }
  for (auto& s : sides)
    if (!s.session->wait_ready() || !s.session->load(0, 0))
      return s.name + "'s runner ended before timing";
  return std::nullopt;
}

// A batch of n calls on one side, ms per call; nothing when a call failed or the last slot's
// outputs do not match the reference.
std::optional<double> time_batch(Side& s, int n, const Bench& b) {
  std::vector<RunnerSession::Call> calls;
  for (int k = 0; k < n; ++k) calls.push_back({0, k});
  auto r = s.session->run(calls, {0});
  if (!r.ok || !r.exception.empty() || r.rc != 0 || !r.mutated.empty()) return std::nullopt;
  auto off = output_offsets(s.session->set(0));
  for (size_t i = 0; i < b.set.outputs.size(); ++i)
    if (!compare_output(b.set.outputs[i], s.session->slot(n - 1) + off[i], b.tol).ok)
      return std::nullopt;
  return r.wall_ms / n;
}

std::string retime_failed(const Side& s) {
  return s.name + " failed or gave wrong outputs when re-timed";
}

// Warm-up, three calls each (the first pays page faults): the slower side's fastest call (ms)
// sizes the batches.
std::optional<std::string> warm_up(Sides& sides, const Bench& b, double& slow) {
  slow = 0;
  for (auto& s : sides) {
    double fastest = 1e30;
    for (int w = 0; w < 3; ++w) {
      auto t = time_batch(s, 1, b);
      if (!t) return retime_failed(s);
      fastest = std::min(fastest, *t);
    }
    slow = std::max(slow, fastest);
  }
  return std::nullopt;
}

// `rounds` rounds of a batch of n calls per side, interleaved (A B, then B A): the ratio of
// the best's time to the candidate's per round.
std::optional<std::string> timed_rounds(Sides& sides, const Bench& b, int n, int rounds,
                                        std::vector<double>& ratios) {
  for (int r = 0; r < rounds; ++r) {
    double ms[2] = {0, 0};
    for (int step = 0; step < 2; ++step) {
      int k = (r % 2 == 0) ? step : 1 - step;
      auto t = time_batch(sides.side[k], n, b);
      if (!t) return retime_failed(sides.side[k]);
      ms[k] = *t;
      sides.side[k].per_call_ms.push_back(*t);
    }
    ratios.push_back(ms[1] > 0 ? ms[0] / ms[1] : 0);
  }
  return std::nullopt;
}

}  // namespace

nlohmann::json Confirmation::to_json() const {
  return {{"ran", ran},           {"faster", faster},     {"ratio", ratio},
          {"ratio_q1", ratio_q1}, {"ratio_q3", ratio_q3}, {"rounds", rounds},
          {"wins", wins},         {"best_ms", best_ms},   {"candidate_ms", candidate_ms},
          {"note", note}};
}

Confirmation Confirmation::from_json(const nlohmann::json& j) {
  Confirmation c;
  c.ran = j.value("ran", false);
  c.faster = j.value("faster", false);
  c.ratio = j.value("ratio", 0.0);
  c.ratio_q1 = j.value("ratio_q1", 0.0);
  c.ratio_q3 = j.value("ratio_q3", 0.0);
  c.rounds = j.value("rounds", 0);
  c.wins = j.value("wins", 0);
  c.best_ms = j.value("best_ms", 0.0);
  c.candidate_ms = j.value("candidate_ms", 0.0);
  c.note = j.value("note", std::string());
  return c;
}

Confirmation judge_rounds(const std::vector<double>& ratios, const ConfirmOptions& o) {
  Confirmation c;
  if (ratios.empty()) return failed("no round was timed");
  c.ran = true;
  c.rounds = static_cast<int>(ratios.size());
  c.wins =
      static_cast<int>(std::count_if(ratios.begin(), ratios.end(), [](double r) { return r > 1; }));
  c.ratio = quantile(ratios, 0.5);
  c.ratio_q1 = quantile(ratios, 0.25);
  c.ratio_q3 = quantile(ratios, 0.75);
  int need = std::min(o.min_wins, c.rounds);
  c.faster = c.ratio >= 1 + o.min_gain && c.wins >= need;
  return c;
}

Confirmation Verifier::confirm(const TaskInfo& task, const std::string& best_source,
                               const std::string& candidate_source, const VerifyOptions& opt,
                               const ConfirmOptions& copt) {
  // The same pair under the same options was measured before: that measurement is the answer
  // (as for verdicts), which also keeps a replayed run identical to its recording.
  const std::string key =
      "confirm:" +
      sha256_hex(cache_key(task, best_source, opt) + "/" + cache_key(task, candidate_source, opt) +
                 "/" + std::to_string(copt.rounds) + "/" + std::to_string(copt.min_gain) + "/" +
                 std::to_string(copt.min_wins));
  if (opt.use_cache) {
    std::lock_guard<std::mutex> g(db_mu_);
    auto s = ws_.db().prepare("SELECT verdict FROM verify_cache WHERE key = ?");
    s.bind(1, key);
    if (s.step()) {
      auto j = nlohmann::json::parse(s.text(0), nullptr, false);
      if (j.is_object()) {
        Confirmation c = Confirmation::from_json(j);
        c.cached = true;
        return c;
      }
    }
  }
  Confirmation c = measure_confirmation(task, best_source, candidate_source, opt, copt);
  // Every answer but the machinery's failure is kept, a kernel that failed when re-timed
  // included: a resumed or replayed run then gets the answer the first run got, whatever the
  // machine's load is now.
  if (opt.use_cache && !c.infra) {
    std::lock_guard<std::mutex> g(db_mu_);
    auto s = ws_.db().prepare("INSERT OR REPLACE INTO verify_cache (key, verdict) VALUES (?, ?)");
    s.bind(1, key).bind(2, c.to_json().dump()).run();
  }
  return c;
}

Confirmation Verifier::measure_confirmation(const TaskInfo& task, const std::string& best_source,
                                            const std::string& candidate_source,
                                            const VerifyOptions& opt, const ConfirmOptions& copt) {
  try {
    auto backend = make_backend(opt.backend);
    if (auto why = backend->device_unavailable()) return failed("no device: " + *why);
    Sides sides;
    const std::string* sources[2] = {&best_source, &candidate_source};
    if (auto why = compile_sides(*backend, sides, sources, opt)) return failed(*why);
    const Bench b(references(task, 1).at(0), opt);
    CpuLease lease(opt.threads);
    if (auto why = start_sides(*backend, sides, b, lease, opt)) return failed(*why);
    double slow = 0;
    if (auto why = warm_up(sides, b, slow)) return failed(*why);
    const int n =
        std::clamp(static_cast<int>(copt.batch_target_ms / std::max(slow, 1e-3)), 1, b.slots);
    std::vector<double> ratios;
    if (auto why = timed_rounds(sides, b, n, copt.rounds, ratios)) return failed(*why);
    Confirmation c = judge_rounds(ratios, copt);
    c.best_ms = quantile(sides.side[0].per_call_ms, 0.5);
    c.candidate_ms = quantile(sides.side[1].per_call_ms, 0.5);
    c.note = fmt::format("{} rounds of {} calls each, interleaved on CPU(s) {}", c.rounds, n,
                         fmt::join(lease.cpus(), ","));
    return c;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    Confirmation c =
        failed(std::string("the confirmation failed (not the kernel's fault): ") + e.what());
    c.infra = true;
    return c;
  }
}

}  // namespace evk
