// Where verifications run (docs/architecture.md §1, src/run/): an Executor takes one candidate and
// answers its verdict, blocking the caller, so the agent reads top to bottom. Implementations
// decide where the verifier runs: `local` (this machine's process pool) or `slurm` (one batch
// job per candidate on a cluster, slurm_executor.h). Whatever the place, the caller stays the
// only writer of memory and run database.
// Contract: verify() is safe to call from many threads at once; a failure of the machinery
// (not of the kernel) comes back as a verdict whose category is_infra(), never as a kernel
// failure.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/verdict.h"
#include "tasks/task.h"
#include "verify/verifier.h"

namespace evk {

using VerifyWork = std::vector<std::pair<const TaskInfo*, std::string>>;  // (task, source)

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;
  virtual Verdict verify(const TaskInfo& task, const std::string& source,
                         const VerifyOptions& opt) = 0;
  // Many candidates at once (`verify --also`); verdicts in input order.
  virtual std::vector<Verdict> verify_batch(const VerifyWork& work, const VerifyOptions& opt) = 0;
  // Re-times `candidate` interleaved with `best` (verify/confirm.h). An executor that cannot
  // answers ran = false with the reason (the agent then does not credit the speed-up).
  virtual Confirmation confirm(const TaskInfo&, const std::string&, const std::string&,
                               const VerifyOptions&) {
    Confirmation c;
    c.note = "the " + name() + " executor cannot run interleaved confirmations";
    return c;
  }
};

// This machine: the Verifier itself, and verify_all's pool of `jobs` for batches.
class LocalExecutor : public Executor {
 public:
  explicit LocalExecutor(Verifier& verifier, int jobs = 1) : verifier_(verifier), jobs_(jobs) {}
  std::string name() const override { return "local"; }
  Verdict verify(const TaskInfo& task, const std::string& source,
                 const VerifyOptions& opt) override {
    return verifier_.verify(task, source, opt);
  }
  std::vector<Verdict> verify_batch(const VerifyWork& work, const VerifyOptions& opt) override {
    return verify_all(verifier_, work, opt, jobs_);
  }
  Confirmation confirm(const TaskInfo& task, const std::string& best, const std::string& candidate,
                       const VerifyOptions& opt) override {
    return verifier_.confirm(task, best, candidate, opt);
  }

 private:
  Verifier& verifier_;
  int jobs_;
};

}  // namespace evk
