#include "verify/runner_outcome.h"

#include <fmt/format.h>
#include <signal.h>

namespace evk {
namespace {

std::string tail(const std::string& s, size_t n) {
  return s.size() > n ? "..." + s.substr(s.size() - n) : s;
}

}  // namespace

std::optional<RunnerFailure> classify_runner_outcome(const TrialOutcome& out, const RunnerBounds& b) {
  if (!out.passed && !out.ended_early) return RunnerFailure{out.gate, out.category, out.feedback};
  const ProcessResult& p = out.run.process;
  const RunnerReport& rep = out.run.report;
  const std::string where = out.phase.empty() ? "loading" : out.phase;
  const Gate gate = out.phase == "timing" || out.phase == "finishing" ? Gate::Latency : Gate::Correctness;
  const std::string stderr_tail = p.err.empty() ? "" : "\nstderr: " + tail(p.err, 600);
  if (!rep.forbidden_syscall.empty())
    return RunnerFailure{
        gate, Category::RuntimeCrash,
        fmt::format("the sandbox stopped the kernel at the forbidden system call {} (during {}): "
                    "kernels may not open sockets, start processes or programs, or signal other "
                    "processes",
                    rep.forbidden_syscall, where)};
  if (p.timed_out)
    return RunnerFailure{gate, Category::Timeout,
                         fmt::format("the kernel did not finish within {:.0f} s (during {}): an "
                                     "infinite loop, a deadlock, or far too slow for the task size",
                                     b.run_timeout_s, where)};
  if (p.err_truncated || p.out_truncated)
    return RunnerFailure{gate, Category::RuntimeCrash,
                         fmt::format("the kernel printed more than {} KiB (during {}): kernels "
                                     "must not print",
                                     b.output_cap >> 10, where)};
  if (p.term_signal) {
    std::string hint;
    if (p.term_signal == SIGXCPU) hint = " (CPU time limit: far too slow or an endless loop)";
    if (p.err.find("bad_alloc") != std::string::npos)
      hint = fmt::format(" (out of memory: the limit is {} MiB)", b.address_space_mb);
    if (p.term_signal == SIGSEGV)
      hint = " (an out-of-bounds access or a stack overflow: check index arithmetic and large "
             "local arrays)";
    return RunnerFailure{gate, Category::RuntimeCrash,
                         fmt::format("the kernel crashed: {} during {}{}{}", p.describe(), where,
                                     hint, stderr_tail)};
  }
  if (!rep.load_error.empty())
    return RunnerFailure{Gate::Compile, Category::Compile,
                         "the library failed to load: " + rep.load_error, true};
  if (!out.passed && where == "loading")  // never ready: the library's load or the runner's start
    return RunnerFailure{gate, Category::RuntimeCrash,
                         fmt::format("the process ended early ({}) during loading, before the "
                                     "runner was ready: a kernel whose static initialisers exit "
                                     "ends here, and so does a runner that cannot start (when "
                                     "every candidate ends here, run `evokernel doctor`){}",
                                     p.describe(), stderr_tail)};
  if (!out.passed)
    return RunnerFailure{gate, Category::RuntimeCrash,
                         fmt::format("the process ended early ({}) during {}: kernels must return "
                                     "from evk_forward{}",
                                     p.describe(), where, stderr_tail)};
  return std::nullopt;
}

}  // namespace evk
