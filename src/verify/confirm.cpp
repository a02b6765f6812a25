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
    Side sides[2];
    sides[0].name = "the best";
    sides[1].name = "the candidate";
    const std::string* sources[2] = {&best_source, &candidate_source};
    for (int k = 0; k < 2; ++k) {
      CompileResult cr = backend->compile(*sources[k], sides[k].dir.path(), opt.compile_timeout_s);
      if (!cr.ok)
        return failed(sides[k].name + " no longer compiles: " + cr.feedback.substr(0, 300));
      if (auto bad = backend->check_artifact(cr.artifact))
        return failed(sides[k].name + ": " + *bad);
      sides[k].library = cr.artifact.string();
    }
    std::vector<Reference> refs = references(task, 1);
    TrialSet set = trial_set(refs.at(0), "seed 0", "seed 0");
    std::vector<std::string> abi;
    for (const auto& t : refs[0].abi) abi.push_back(t.name);
    SessionSet ss;
    for (const auto& x : set.inputs) ss.inputs.push_back(&x);
    ss.outputs = set.specs;
    RunnerSet probe;
    probe.outputs = set.specs;
    const int slots = static_cast<int>(
        std::clamp<uint64_t>((256ull << 20) / std::max<size_t>(probe.record_bytes(), 1), 1, 64));
    Tolerance tol = task_tolerance(refs[0], opt);

    // The same CPUs for both: only one of them runs at any moment.
    CpuLease lease(opt.threads);
    for (auto& s : sides) {
      RunnerLimits lim = runner_limits(backend->runner(s.dir.path()), opt);
      lim.cpus = lease.cpus();
      s.session =
          std::make_unique<RunnerSession>(s.library, abi, std::vector<SessionSet>{ss}, slots);
      s.session->start(lim, s.dir.path().string());
    }
    auto end_all = [&] {
      for (auto& s : sides) {
        if (!s.session->ended()) (void)s.session->quit();
        (void)s.session->finish();
      }
    };
    // A batch of n calls on one side; its outputs' last slot checked against the reference.
    auto batch = [&](Side& s, int n) -> std::optional<double> {
      std::vector<std::pair<int, int>> calls;
      for (int k = 0; k < n; ++k) calls.emplace_back(0, k);
      auto b = s.session->run(calls, {0});
      if (!b.ok || !b.exception.empty() || b.rc != 0 || !b.mutated.empty()) return std::nullopt;
      auto off = output_offsets(s.session->set(0));
      for (size_t i = 0; i < set.outputs.size(); ++i)
        if (!compare_output(set.outputs[i], s.session->slot(n - 1) + off[i], tol).ok)
          return std::nullopt;
      return b.wall_ms / n;
    };
    for (auto& s : sides)
      if (!s.session->wait_ready() || !s.session->load(0, 0)) {
        end_all();
        return failed(s.name + "'s runner ended before timing");
      }
    // Warm-up (three calls each: the first pays page faults), then batches sized for the
    // slower of the two by its fastest warm-up call.
    double slow = 0;
    for (auto& s : sides) {
      double fastest = 1e30;
      for (int w = 0; w < 3; ++w) {
        auto t = batch(s, 1);
        if (!t) {
          end_all();
          return failed(s.name + " failed or gave wrong outputs when re-timed");
        }
        fastest = std::min(fastest, *t);
      }
      slow = std::max(slow, fastest);
    }
    const int n =
        std::clamp(static_cast<int>(copt.batch_target_ms / std::max(slow, 1e-3)), 1, slots);
    std::vector<double> ratios;
    for (int r = 0; r < copt.rounds; ++r) {
      double ms[2] = {0, 0};
      for (int step = 0; step < 2; ++step) {
        int k = (r % 2 == 0) ? step : 1 - step;  // A B, then B A
        auto t = batch(sides[k], n);
        if (!t) {
          end_all();
          return failed(sides[k].name + " failed or gave wrong outputs when re-timed");
        }
        ms[k] = *t;
        sides[k].per_call_ms.push_back(*t);
      }
      ratios.push_back(ms[1] > 0 ? ms[0] / ms[1] : 0);
    }
    end_all();
    Confirmation c = judge_rounds(ratios, copt);
    c.best_ms = quantile(sides[0].per_call_ms, 0.5);
    c.candidate_ms = quantile(sides[1].per_call_ms, 0.5);
    c.note = fmt::format("{} rounds of {} calls each, interleaved on CPU(s) {}", c.rounds, n,
                         fmt::join(lease.cpus(), ","));
    return c;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    Confirmation c = failed(std::string("the confirmation failed (not the kernel's fault): ") + e.what());
    c.infra = true;
    return c;
  }
}

}  // namespace evk
