#include "verify/trial.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "core/error.h"
#include "verify/output_digest.h"
#include "verify/runner_session.h"
#include "verify/trace_replay.h"

namespace evk {
using nlohmann::json;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double trial_quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  double x = p * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(x), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (x - static_cast<double>(lo));
}

// Timing stops before the budget once the median per-call time is known to +-kMedianPrecision
// of itself: its 95% interval (median +- 1.58 IQR / sqrt(batches), a boxplot's notch) that
// narrow, after at least 2 x min_batches batches and every variant set loaded. 1% is half the
// gain a confirmation asks (ConfirmOptions::min_gain): more calls would not change what it
// decides. The budget still bounds a noisy kernel's timing.
constexpr double kMedianPrecision = 0.01;

class Trial {
 public:
  Trial(const std::vector<TrialSet>& sets, int seeds, const TrialOptions& opt, RunnerSession& s)
      : sets_(sets),
        seeds_(seeds),
        opt_(opt),
        s_(s),
        rng_(std::random_device{}()),
        slot_set_(static_cast<size_t>(s.job().slots), -1) {}

  void run() {
    // Where the runner's time goes, phase by phase (metrics "cost_s": bench_verify prints it).
    double t = now_s();
    auto lap = [&](const char* phase) {
      double n = now_s();
      out_.metrics["cost_s"][phase] = n - t;
      t = n;
    };
    bool ready = s_.wait_ready();
    lap("runner_start");  // process, jail, seccomp, the library loaded, the regions mapped
    if (!ready) return (void)ended("loading");
    bool ok = correctness();
    lap("correctness");
    if (!ok) return;
    ok = timing();
    lap("timing");
    if (!ok) return;
    out_.phase = "finishing";
    if (!s_.quit()) return (void)ended("finishing");
    out_.passed = true;
  }

  // After the runner has ended: checks that need its final state.
  void after_exit() {
    if (!out_.passed) return;
    for (const auto& [slot, set, digest] : snapshots_)
      if (!(slot_digest(slot, set) == digest)) {
        fail(Gate::DynamicHack, Category::HackDynamic,
             fmt::format("the outputs for {} changed after evk_forward returned: all work must "
                         "finish before returning (no detached threads)",
                         sets_[static_cast<size_t>(set)].name));
        return;
      }
  }

  TrialOutcome& outcome() { return out_; }

 private:
  int correctness_count() const {
    int n = 0;
    for (const auto& t : sets_) n += t.correctness ? 1 : 0;
    return n;
  }

  bool fail(Gate g, Category category, const std::string& feedback) {
    out_.passed = false;
    out_.gate = g;
    out_.category = category;
    out_.feedback = feedback;
    return false;
  }

  bool ended(const std::string& phase) {
    out_.phase = phase;
    out_.ended_early = true;
    if (!s_.violation().empty()) {
      out_.ended_early = false;
      fail(Gate::DynamicHack, Category::HackDynamic,
           "the runner's report channel was tampered with (" + s_.violation() +
               "): a kernel may not write to the harness's descriptors");
    }
    return false;
  }

  bool batch_failed(const RunnerSession::Batch& b, Gate g) {
    if (!b.ok) {
      ended(out_.phase);
      return true;
    }
    if (!b.exception.empty()) {
      bool oom = b.exception.find("bad_alloc") != std::string::npos;
      fail(g, Category::RuntimeCrash,
           fmt::format("evk_forward threw {} (during {}){}", b.exception, out_.phase,
                       oom ? ": the process is out of memory" : ""));
      return true;
    }
    if (b.rc != 0) {
      fail(g, Category::RuntimeCrash,
           fmt::format("evk_forward returned {} (during {}); it must return 0 on success", b.rc,
                       out_.phase));
      return true;
    }
    if (!b.mutated.empty()) {
      fail(Gate::DynamicHack, Category::HackDynamic,
           "the kernel wrote to its inputs (" + b.mutated + " during " + out_.phase +
               "): inputs are read-only");
      return true;
    }
    return false;
  }

  Digest slot_digest(int slot, int set) const {
    return digest_.of(s_.slot(slot), s_.set(set).record_bytes());
  }

  // nullopt when slot `slot` holds outputs matching set `k`'s references; else the feedback.
  // Outputs byte-for-byte those of an earlier call on set `k` that matched (the same keyed
  // digest) are not compared again: a deterministic kernel's checked calls then cost one read
  // pass each, not one comparison per element nor a kept copy.
  std::optional<std::string> check(int slot, int k, bool track_worst) {
    const TrialSet& t = sets_[static_cast<size_t>(k)];
    const Digest d = slot_digest(slot, k);
    auto matched = matched_.find(k);
    if (!track_worst && matched != matched_.end() && matched->second == d) return std::nullopt;
    auto off = output_offsets(s_.set(k));
    for (size_t i = 0; i < t.outputs.size(); ++i) {
      CompareResult c = compare_output(t.outputs[i], s_.slot(slot) + off[i], opt_.tol);
      if (track_worst) {
        auto& m = out_.metrics;
        m["max_abs_err"] = std::max(m.value("max_abs_err", 0.0), c.max_abs);
        m["max_rel_err"] = std::max(m.value("max_rel_err", 0.0), c.max_rel);
        m["rel_err_norm"] = std::max(m.value("rel_err_norm", 0.0), c.rel_norm);
      }
      if (!c.ok) return c.describe(t.specs[i].name, t.specs[i].shape);
    }
    if (matched == matched_.end()) matched_.emplace(k, d);
    return std::nullopt;
  }

  bool same_slot_bytes(int a, int b, int set) const {
    return std::memcmp(s_.slot(a), s_.slot(b), s_.set(set).record_bytes()) == 0;
  }

  bool refs_equal(int a, int b) const {
    const auto& x = sets_[static_cast<size_t>(a)].outputs;
    const auto& y = sets_[static_cast<size_t>(b)].outputs;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].shape != y[i].shape || x[i].data != y[i].data) return false;
    return true;
  }

  // Gate 3: each correctness set once, in its own group and slot (never reused).
  bool correctness() {
    std::vector<int> done;
    for (size_t k = 0; k < sets_.size(); ++k) {
      const TrialSet& t = sets_[k];
      if (!t.correctness) continue;
      int g = static_cast<int>(k), slot = static_cast<int>(done.size());
      out_.phase = t.name;
      if (!s_.load(g, g)) return ended(t.name);
      group_set_.resize(std::max<size_t>(group_set_.size(), k + 1), -1);
      group_set_[k] = g;
      auto b = s_.run({{g, slot}}, group_set_);
      if (batch_failed(b, Gate::Correctness)) return false;
      snapshots_.emplace_back(slot, g, slot_digest(slot, g));
      if (auto bad = check(slot, g, true)) {
        for (size_t e = 0; e < done.size(); ++e) {
          int other = done[e];
          if (s_.set(other).record_bytes() == s_.set(g).record_bytes() &&
              same_slot_bytes(slot, static_cast<int>(e), g) && !refs_equal(g, other))
            return fail(
                Gate::DynamicHack, Category::HackDynamic,
                fmt::format("the outputs for {} are byte-for-byte those for {} although the "
                            "inputs differ: results are cached or replayed across calls",
                            t.name, sets_[static_cast<size_t>(other)].name));
        }
        return fail(Gate::Correctness, Category::Mismatch,
                    fmt::format("{}: {}", t.description, *bad));
      }
      keep_trace(g, b);
      done.push_back(g);
    }
    return true;
  }

  // Gates 4-5 for a modeled latency: each seed once more, loaded into a group of its own (new
  // buffers at new addresses, a poisoned slot), called and checked like a correctness call.
  // The latency is not taken here: it is the replay's (replay_and_time).
  bool modeled_timing() {
    const int slot = correctness_count();
    for (int g = 0; g < seeds_; ++g) {
      int fresh = static_cast<int>(sets_.size()) + g;
      if (!s_.load(fresh, g)) return ended("timing");
      group_set_.resize(std::max<size_t>(group_set_.size(), static_cast<size_t>(fresh) + 1), -1);
      group_set_[static_cast<size_t>(fresh)] = g;
      auto b = s_.run({{fresh, slot}}, group_set_);
      if (batch_failed(b, Gate::Latency)) return false;
      if (b.claimed_ms.size() != 1 || !(b.claimed_ms[0] > 0))
        return fail(Gate::DynamicHack, Category::HackDynamic,
                    "the runner reported no modeled latency for its call: the report was forged");
      if (auto bad = check(slot, g, false))
        return fail(Gate::DynamicHack, Category::HackDynamic,
                    fmt::format("a timed call's results were wrong ({}: {}): the kernel behaves "
                                "differently when called repeatedly",
                                sets_[static_cast<size_t>(g)].name, *bad));
      keep_trace(g, b);
    }
    if (seeds_ < 1) return fail(Gate::Latency, Category::Infra, "no seed to time");
    out_.trials = out_.batches = out_.checked_calls = static_cast<int>(traces_.size());
    out_.metrics["checked_calls"] = traces_.size();
    out_.metrics["kernel_calls"] = slot + seeds_;
    return true;
  }

 public:
  // A modeled latency's verdict: every checked call's API trace replayed out of the kernel's
  // reach (trace_replay.h). Each replay's outputs must match the references; the latency is the
  // slowest replayed call at the task's own shape, so history buys a kernel nothing.
  void replay_and_time(const RunnerLimits& lim, const std::string& workdir) {
    if (!out_.passed || !opt_.modeled) return;
    std::vector<ReplayResult> rs;
    double t0 = now_s();
    try {
      rs = replay_traces(s_.job(), traces_, lim, workdir);
      out_.metrics["replay_s"] = now_s() - t0;  // what the replay adds to a verification
    } catch (const ReplayUnavailable& e) {
      return (void)fail(Gate::Latency, Category::Infra, e.what());
    } catch (const Error& e) {
      return (void)fail(Gate::DynamicHack, Category::HackDynamic,
                        std::string("the kernel's API trace could not be replayed (") + e.what() +
                            "): the trace was not written by the runner's Ascend C API");
    }
    const ReplayResult* slowest = nullptr;
    double claimed = 0;
    for (size_t k = 0; k < rs.size(); ++k) {
      int set = traces_[k].set;
      const TrialSet& t = sets_[static_cast<size_t>(set)];
      if (!rs[k].error.empty())
        return (void)fail(Gate::DynamicHack, Category::HackDynamic,
                          fmt::format("replaying the kernel's Ascend C API calls for {} rejected "
                                      "them: {}",
                                      t.name, rs[k].error));
      auto off = output_offsets(s_.set(set));
      for (size_t i = 0; i < t.outputs.size(); ++i) {
        CompareResult c = compare_output(t.outputs[i], rs[k].outputs.data() + off[i], opt_.tol);
        if (!c.ok)
          return (void)fail(
              Gate::DynamicHack, Category::HackDynamic,
              fmt::format("the outputs the kernel returned for {} were right, but its charged "
                          "Ascend C API calls, replayed, give {}: the outputs were produced off "
                          "the books (memory written behind the API), not by the calls the cost "
                          "model charged",
                          t.name, c.describe(t.specs[i].name, t.specs[i].shape)));
      }
      if (same_shape(set, 0) && (!slowest || rs[k].ms > slowest->ms)) {
        slowest = &rs[k];
        claimed = claimed_[k];
      }
    }
    if (!slowest) return (void)fail(Gate::Latency, Category::Infra, "no replayed call to time");
    out_.median_ms = out_.min_ms = slowest->ms;
    out_.iqr_ms = 0;
    out_.metrics["modeled"] = slowest->modeled;
    // What the kernel's own process modeled for the same call: a claim, kept to show that the
    // replay charges an honest kernel exactly what the runner's emulator did.
    out_.metrics["runner_modeled_ms"] = claimed;
    out_.metrics["latency_source"] = "cost model (replayed API trace; the slowest checked call)";
  }

 private:
  // The runner's trace of the call just made on set `set`, kept for the replay.
  void keep_trace(int set, const RunnerSession::Batch& b) {
    if (!opt_.modeled) return;
    traces_.push_back({set, s_.last_trace()});
    claimed_.push_back(b.claimed_ms.empty() ? 0 : b.claimed_ms[0]);
  }

  bool same_shape(int a, int b) const {
    const auto& x = sets_[static_cast<size_t>(a)].inputs;
    const auto& y = sets_[static_cast<size_t>(b)].inputs;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].shape != y[i].shape) return false;
    return true;
  }

  // Gates 4-5: timed batches over the seed groups, reloaded between batches.
  bool timing() {
    out_.phase = "timing";
    if (opt_.modeled) return modeled_timing();
    start_timing();
    if (!warm_up()) return false;
    const double cpu0 = s_.cpu_s(), t0 = now_s();
    while (out_.trials < opt_.timing_max_trials &&
           (out_.batches < opt_.min_batches || tm_.spent < opt_.timing_budget_ms) && !tight()) {
      int loaded = -1;
      if (!reload(loaded)) return ended("timing");
      if (!run_checked(plan_batch(loaded), true)) return false;
    }
    return threads_fit(cpu0, t0) && close_timing();
  }

  void start_timing() {
    tm_.first_slot = correctness_count();
    tm_.max_batch = std::max(1, s_.job().slots - tm_.first_slot);
    for (size_t k = 0; k < sets_.size(); ++k)
      if (sets_[k].timing) tm_.timing_sets.push_back(static_cast<int>(k));
    for (int k : tm_.timing_sets)
      if (k >= seeds_) tm_.variants.push_back(k);
    std::shuffle(tm_.variants.begin(), tm_.variants.end(), rng_);
    tm_.fresh.assign(static_cast<size_t>(seeds_), false);
    tm_.previous.assign(static_cast<size_t>(seeds_), -1);
  }

  // One call per seed group, the last one sizing the batches (tm_.n calls each).
  bool warm_up() {
    double w = 0;
    for (int g = 0; g < seeds_; ++g) {
      const double t0 = now_s();
      if (!run_checked({call(g, tm_.first_slot)}, false)) return false;
      w = (now_s() - t0) * 1e3;
    }
    size_batches(w);
    return true;
  }

  // Calls per batch for a batch of about batch_target_ms at `per_call_ms` a call. Sized from
  // the warm-up, then from the fastest timed batch so far: a kernel that stalls its warm-up
  // calls would otherwise keep one-call batches, which on a busy machine time faster than
  // long ones (a short burst right after a wake-up is seldom preempted): slow_warmup timed
  // 2-4.7x faster than the same loop so.
  void size_batches(double per_call_ms) {
    const int cap = std::max(1, std::min(tm_.max_batch, opt_.timing_max_trials / opt_.min_batches));
    tm_.n =
        std::clamp(static_cast<int>(opt_.batch_target_ms / std::max(per_call_ms, 1e-3)), 1, cap);
  }

  // The median is known to kMedianPrecision: timing may stop early. Every variant has been
  // loaded by then (one per batch, the first batches).
  bool tight() const {
    const int min_batches =
        std::max(2 * opt_.min_batches, static_cast<int>(tm_.variants.size()) + opt_.min_batches);
    if (out_.batches < min_batches) return false;
    const auto& v = tm_.per_call;
    double iqr = trial_quantile(v, 0.75) - trial_quantile(v, 0.25);
    return 1.58 * iqr / std::sqrt(static_cast<double>(v.size())) <=
           kMedianPrecision * trial_quantile(v, 0.5);
  }

  int pick_group() { return std::uniform_int_distribution<int>(0, seeds_ - 1)(rng_); }
  double coin() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

  // Between batches: every variant once, in a random order, then another timing set into a
  // random seed group with chance kReloadChance. A variant goes into its base seed's group: the
  // same addresses, the same values but in a few random positions. `loaded`: the group, or -1.
  bool reload(int& loaded) {
    const bool planned = static_cast<size_t>(out_.batches) < tm_.variants.size();
    // Per batch, scaled down for short batches: a reload's first call is always checked, and
    // one-call batches (a slow kernel on a busy machine) would check every other call.
    const double chance = kReloadChance * std::min(1.0, tm_.n / 4.0);
    if (tm_.timing_sets.size() < 2 || !(planned || coin() < chance)) return true;
    int next = planned ? tm_.variants[static_cast<size_t>(out_.batches)] : -1;
    int base = next >= 0 ? sets_[static_cast<size_t>(next)].base : -1;
    int g = base >= 0 && base < seeds_ ? base : pick_group();
    int cur = group_set_[static_cast<size_t>(g)];
    if (next < 0) next = cur;
    while (next == cur)
      next = tm_.timing_sets[std::uniform_int_distribution<size_t>(
          0, tm_.timing_sets.size() - 1)(rng_)];
    if (!s_.load(g, next)) return false;
    tm_.previous[static_cast<size_t>(g)] = cur;
    tm_.fresh[static_cast<size_t>(g)] = true;
    group_set_[static_cast<size_t>(g)] = next;
    loaded = g;
    return true;
  }

  // Whether set a's references equal set b's (a variant whose changed inputs do not change the
  // outputs): outputs left over from one are right for the other. Memoised per pair.
  bool same_outputs(int a, int b) {
    if (a == b) return true;
    auto key = std::minmax(a, b);
    auto it = same_outputs_.find(key);
    if (it == same_outputs_.end()) it = same_outputs_.emplace(key, refs_equal(a, b)).first;
    return it->second;
  }

  // A call of group g into `slot`. The slot is poisoned (NaN) only when what it holds may be
  // right for g's set: never written by the parent's plan, or last given a call on a set with
  // the same outputs. Otherwise it holds the outputs of a call on a set whose references
  // differ, and a kernel that leaves them (writes nothing, or only part) fails the check just as
  // it would on poison; the poison pass over every output cost more than the kernel's own run
  // for a memory-bound task. Prepared outputs in other slots gain nothing: writing them is work
  // done inside a timed call, and replaying them is what the reloads catch.
  RunnerSession::Call call(int g, int slot) {
    const int set = group_set_[static_cast<size_t>(g)];
    int& last = slot_set_[static_cast<size_t>(slot)];
    RunnerSession::Call c{g, slot, last < 0 || same_outputs(last, set)};
    last = set;
    tm_.poisoned += c.poison ? 1 : 0;
    return c;
  }

  // The next batch: random seed groups (the reloaded one first: its first call is checked),
  // each into a free slot that needs no poison where there is one. Every call goes to the
  // next slot from a cursor that moves on across batches (the least recently written), so a
  // call's outputs are as cold in the caches whatever the batch size: the kernel sizes the
  // batches through its warm-up time, and one hot slot reused by one-call batches once timed
  // a relu 4.5x faster than the same loop in long batches (corpus hack slow_warmup).
  std::vector<RunnerSession::Call> plan_batch(int loaded) {
    const int m = std::min(tm_.n, opt_.timing_max_trials - out_.trials);
    const int window = tm_.max_batch;
    std::vector<bool> used(static_cast<size_t>(window), false);
    std::vector<RunnerSession::Call> calls;
    for (int k = 0; k < m; ++k) {
      const int g = k == 0 && loaded >= 0 ? loaded : pick_group();
      const int set = group_set_[static_cast<size_t>(g)];
      // The cursor's slot, or one of the next few that needs no poison: looking further
      // would bring back a recently written slot (a one-call batch found the same one each
      // time when it looked at every slot).
      int pick = -1;
      for (int i = 0, seen = 0; i < window && seen < kSlotLookahead; ++i) {
        const int j = (tm_.cursor + i) % window;
        if (used[static_cast<size_t>(j)]) continue;
        ++seen;
        const int last = slot_set_[static_cast<size_t>(tm_.first_slot + j)];
        if (pick < 0) pick = j;
        if (last >= 0 && !same_outputs(last, set)) {
          pick = j;
          break;
        }
      }
      used[static_cast<size_t>(pick)] = true;
      tm_.cursor = (pick + 1) % window;
      calls.push_back(call(g, tm_.first_slot + pick));
    }
    return calls;
  }

  bool run_checked(const std::vector<RunnerSession::Call>& calls, bool timed) {
    auto b = s_.run(calls, group_set_);
    if (batch_failed(b, Gate::Latency)) return false;
    double claimed = 0;
    for (double c : b.claimed_ms) claimed += c;
    if (claimed > b.wall_ms * 1.001 + 0.05)
      return fail(Gate::DynamicHack, Category::HackDynamic,
                  fmt::format("the runner reported {:.4g} ms of calls in a batch the parent timed "
                              "at {:.4g} ms: the report was forged",
                              claimed, b.wall_ms));
    for (const auto& c : calls)
      if (!check_timed_call(c)) return false;
    if (timed) {
      tm_.per_call.push_back(b.wall_ms / static_cast<double>(calls.size()));
      tm_.spent += b.wall_ms;
      tm_.claimed_total += claimed;
      out_.trials += static_cast<int>(calls.size());
      ++out_.batches;
      size_batches(*std::min_element(tm_.per_call.begin(), tm_.per_call.end()));
    }
    return true;
  }

  // A timed call's outputs are compared when it is the first after its group's reload, or
  // drawn at random (kCheckShare of the calls, at most kMaxChecks).
  bool check_timed_call(const RunnerSession::Call& c) {
    const bool must = tm_.fresh[static_cast<size_t>(c.group)];
    tm_.fresh[static_cast<size_t>(c.group)] = false;
    if (!must && (tm_.checks >= kMaxChecks || coin() > kCheckShare)) return true;
    ++tm_.checks;
    const int set = group_set_[static_cast<size_t>(c.group)];
    auto bad = check(c.slot, set, false);
    if (!bad) return true;
    const int prev = tm_.previous[static_cast<size_t>(c.group)];
    const bool stale = prev >= 0 && !check(c.slot, prev, false).has_value();
    const std::string& name = sets_[static_cast<size_t>(set)].name;
    return fail(Gate::DynamicHack, Category::HackDynamic,
                stale ? fmt::format("called on buffers whose values the harness had changed ({} "
                                    "loaded where {} was), the kernel returned the outputs of the "
                                    "earlier values: results are cached across calls (keyed on "
                                    "pointers or on a few sampled values)",
                                    name, sets_[static_cast<size_t>(prev)].name)
                      : fmt::format("a timed call's results were wrong ({}: {}): the kernel "
                                    "behaves differently when called repeatedly",
                                    name, *bad));
  }

  // The runner's CPU time over the timed batches fits in their wall time x threads.
  bool threads_fit(double cpu0, double t0) {
    const double cpu1 = s_.cpu_s(), wall = now_s() - t0;
    if (cpu0 < 0 || cpu1 < 0) return true;
    const double cpu = cpu1 - cpu0;
    out_.metrics["timing_cpu_s"] = cpu;
    out_.metrics["timing_wall_s"] = wall;
    // /proc counts CPU time in 10 ms ticks: two samples are within 20 ms of the truth.
    if (cpu <= wall * opt_.threads * 1.1 + 0.03) return true;
    return fail(Gate::DynamicHack, Category::HackDynamic,
                fmt::format("the timed calls used {:.3g} s of CPU time in {:.3g} s of wall time, "
                            "more than {} thread(s) give: the kernel started extra threads "
                            "(OpenMP teams, timers, std::thread beyond verify.threads)",
                            cpu, wall, opt_.threads));
  }

  bool close_timing() {
    const auto& v = tm_.per_call;
    out_.checked_calls = tm_.checks;
    if (v.empty())
      return fail(Gate::Latency, Category::Infra,
                  "no timed call was made (verify.timing_max_trials is 0?)");
    out_.median_ms = trial_quantile(v, 0.5);
    out_.iqr_ms = trial_quantile(v, 0.75) - trial_quantile(v, 0.25);
    out_.min_ms = *std::min_element(v.begin(), v.end());
    auto& m = out_.metrics;
    m["batch_calls"] = tm_.n;
    m["runner_claimed_ms"] = out_.trials > 0 ? tm_.claimed_total / out_.trials : 0;
    m["parent_timed_ms"] = out_.trials > 0 ? tm_.spent / out_.trials : 0;
    m["checked_calls"] = tm_.checks;
    m["kernel_calls"] = tm_.first_slot + seeds_ + out_.trials;  // correctness, warm-up, timed
    m["poisoned_calls"] = tm_.poisoned;
    return true;
  }

  // What the timing phase keeps between its batches.
  struct Timing {
    int first_slot = 0, max_batch = 1, n = 1;  // n: calls per batch
    int cursor = 0;                            // where plan_batch looks for a slot first
    std::vector<int> timing_sets, variants;    // variants: the timing sets that are not seeds
    std::vector<bool> fresh;                   // per seed group: its next call is checked
    std::vector<int> previous;                 // per seed group: the set before its last reload
    std::vector<double> per_call;              // per timed batch: its wall time / its calls
    int poisoned = 0;                          // timing calls whose slot was poisoned
    double spent = 0, claimed_total = 0;
    int checks = 0;
  };
  static constexpr int kMaxChecks = 64;
  static constexpr int kSlotLookahead = 4;  // plan_batch: free slots looked at from the cursor
  static constexpr double kCheckShare = 0.15;
  static constexpr double kReloadChance = 0.5;  // per batch of 4 calls or more

  const std::vector<TrialSet>& sets_;
  int seeds_;
  TrialOptions opt_;
  RunnerSession& s_;
  std::mt19937_64 rng_;
  std::vector<int> group_set_;
  std::vector<std::tuple<int, int, Digest>> snapshots_;  // slot, set, digest of its outputs
  std::vector<ReplayCall> traces_;  // every checked call's API trace (modeled latencies)
  std::vector<double> claimed_;     // the runner's modeled ms for each of them
  OutputDigest digest_;             // keyed per trial: the kernel never learns the key
  std::map<int, Digest> matched_;   // set -> digest of the outputs of a call that matched it
  std::vector<int> slot_set_;       // per slot: the set of the last call planned into it, or -1
  std::map<std::pair<int, int>, bool> same_outputs_;
  Timing tm_;
  TrialOutcome out_;
};

}  // namespace

TrialOutcome run_trial(const std::string& library, const std::vector<std::string>& abi,
                       const std::vector<TrialSet>& sets, int seeds, const TrialOptions& opt,
                       const RunnerLimits& lim, const std::string& workdir) {
  std::vector<SessionSet> ss;
  size_t slot_bytes = kRunnerAlign;
  int correctness = 0;
  for (const auto& t : sets) {
    SessionSet s;
    for (const auto& x : t.inputs) s.inputs.push_back(&x);
    s.outputs = t.specs;
    RunnerSet probe;
    probe.outputs = t.specs;
    slot_bytes = std::max(slot_bytes, probe.record_bytes());
    correctness += t.correctness ? 1 : 0;
    ss.push_back(std::move(s));
  }
  int timing_slots =
      static_cast<int>(std::clamp<uint64_t>(opt.region_cap_bytes / slot_bytes, 1, 64));
  double t0 = now_s();
  RunnerSession session(library, abi, ss, correctness + timing_slots, opt.modeled);
  double regions_s = now_s() - t0;
  session.start(lim, workdir);
  Trial trial(sets, seeds, opt, session);
  trial.run();
  trial.replay_and_time(lim, workdir);
  TrialOutcome& out = trial.outcome();
  t0 = now_s();
  out.run = session.finish();
  out.metrics["cost_s"]["regions"] = regions_s;  // the input sets copied into shared memory
  out.metrics["cost_s"]["runner_exit"] = now_s() - t0;
  if (!session.violation().empty()) {
    out.passed = false;
    out.ended_early = false;
    out.gate = Gate::DynamicHack;
    out.category = Category::HackDynamic;
    out.feedback = "the runner's report channel was tampered with (" + session.violation() +
                   "): a kernel may not write to the harness's descriptors";
  } else if (out.run.report.forged_results > 0 && (out.passed || out.ended_early)) {
    out.passed = false;
    out.ended_early = false;
    out.gate = Gate::DynamicHack;
    out.category = Category::HackDynamic;
    out.feedback =
        "a result event appeared on the runner's event channel, which the runner never "
        "writes: the kernel forged a report";
  } else {
    trial.after_exit();
  }
  TrialOutcome result = std::move(out);
  return result;
}

}  // namespace evk
