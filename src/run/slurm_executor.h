// The `slurm` executor: each verification is a Slurm batch job (candidates waiting together go
// as one job array) that runs `evokernel verify-job JOB.json` on a node and leaves
// JOB.verdict.json next to the job file, in a folder under the workspace that the nodes share
// (verify_job.h). One poller thread submits, watches squeue and the verdict files and wakes
// the callers; a caller blocks only on its own job, at most max_in_flight jobs are in Slurm at
// once, and nothing on the nodes writes the memory or the run database.
//
// The infrastructure failing is never the kernel failing: a job cancelled, preempted, lost with
// its node, or gone from the queue without a verdict is resubmitted up to `retries` times, then
// answered as an `infra` verdict, as is a job that never starts within start_timeout_s or a
// controller unreachable for longer than unreachable_timeout_s. Destroying the executor (or
// cancel_all) cancels every job it still has in Slurm (scancel).
#pragma once
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/executor.h"
#include "tasks/oracle.h"

namespace evk {

class Config;

struct SlurmOptions {
  std::string partition;                 // empty: the cluster's default partition
  std::vector<std::string> sbatch_args;  // passed to sbatch as given (--gres=gpu:1, --time=...)
  int max_in_flight = 8;                 // jobs submitted and not yet answered
  double poll_s = 0.5;                   // squeue and verdict-file polling period
  int retries = 1;                       // resubmissions of a job lost to the infrastructure
  double start_timeout_s = 0;            // a job pending longer is cancelled as infra (0: never)
  double unreachable_timeout_s = 300;    // squeue failing this long: every job in flight is infra
  double grace_s = 10;                   // a job gone from the queue: wait this long for its file
  bool keep_files = false;               // keep job, verdict and log files (debugging)
  std::filesystem::path workspace;       // the shared workspace
  std::filesystem::path jobs_dir;        // job files; default <workspace>/slurm
  std::filesystem::path evokernel;       // the evokernel CLI nodes run; default: this process's
  std::filesystem::path node_scratch;    // default: verify_job.h default_scratch on each node
  OracleOptions oracle;
};

// slurm.* from the effective config (flags are applied by the caller).
SlurmOptions slurm_options(const Config& c);

// Throws UsageError (one line: the problem and the fix) when sbatch is not on PATH, the
// controller does not answer, or the partition does not exist. Writes nothing.
void slurm_preflight(const SlurmOptions& o);

class SlurmExecutor : public Executor {
 public:
  explicit SlurmExecutor(SlurmOptions o);
  ~SlurmExecutor() override;  // cancels what is still in Slurm, joins the poller
  SlurmExecutor(const SlurmExecutor&) = delete;
  SlurmExecutor& operator=(const SlurmExecutor&) = delete;

  std::string name() const override { return "slurm"; }
  Verdict verify(const TaskInfo& task, const std::string& source,
                 const VerifyOptions& opt) override;
  std::vector<Verdict> verify_batch(const VerifyWork& work, const VerifyOptions& opt) override;

  // Cancels every job in Slurm (scancel) and answers every waiting caller with `infra`; later
  // calls are answered `infra` at once.
  void cancel_all(const std::string& why);
  // For a process about to end (Ctrl-C, SIGTERM): cancels every job in Slurm and removes this
  // session's files, but answers no caller, so nothing half-done can be committed as an
  // attempt; callers stay blocked until the process ends. Safe from any thread.
  void abandon();

  // Slurm jobs submitted so far, resubmissions included (benchmarks, tests).
  int submitted() const;

 private:
  struct Job;
  std::shared_ptr<Job> enqueue(const TaskInfo& task, const std::string& source,
                               const VerifyOptions& opt);
  void poll_loop();
  void submit_some();
  void watch();
  void finish(Job& job, Verdict v);                                    // caller holds mu_
  void lost(const std::shared_ptr<Job>& job, const std::string& why);  // caller holds mu_
  void scancel(const std::vector<std::string>& ids);

  SlurmOptions o_;
  std::string session_;  // job name and folder of this executor's jobs
  std::filesystem::path dir_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;       // waiting to be submitted
  std::vector<std::shared_ptr<Job>> in_flight_;  // submitted, not answered
  int next_file_ = 0, submitted_ = 0;
  double unreachable_since_ = -1;
  bool stop_ = false, closed_ = false, abandoned_ = false;
  std::thread poller_;
};

}  // namespace evk
