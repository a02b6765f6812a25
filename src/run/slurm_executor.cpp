#include "run/slurm_executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <sstream>

#include "core/config.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"
#include "run/verify_job.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / program).c_str(), X_OK) == 0) return true;
  return false;
}

std::string first_line(const std::string& s) {
  std::string t = s.substr(0, s.find('\n'));
  while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Slurm job states (squeue %T) in which a job may still produce its verdict.
bool is_waiting(const std::string& st) {
  return st == "PENDING" || st == "CONFIGURING" || st == "REQUEUED" || st == "REQUEUE_HOLD" ||
         st == "REQUEUE_FED" || st == "RESIZING" || st == "SUSPENDED" || st == "STOPPED";
}
bool is_running(const std::string& st) {
  return st == "RUNNING" || st == "COMPLETING" || st == "STAGE_OUT" || st == "SIGNALING";
}

std::string tail_of_file(const fs::path& p, size_t n) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return "";
  try {
    std::string s = read_file(p);
    return s.size() > n ? "..." + s.substr(s.size() - n) : s;
  } catch (const Error&) {
    return "";
  }
}

Verdict infra_verdict(const std::string& feedback) {
  Verdict v;
  v.feasible = false;
  v.category = Category::Infra;
  v.feedback = feedback;
  return v;
}

std::atomic<int> g_sessions{0};

}  // namespace

struct SlurmExecutor::Job {
  json body;             // the VerifyJob, as written to the job file
  fs::path file;         // this submission's job file
  std::string slurm_id;  // "123" or "123_4"; empty while not in Slurm
  int tries = 0;         // submissions so far
  double submitted_at = 0, started_at = 0, gone_since = -1;
  bool done = false;
  std::string history;  // what went wrong with earlier submissions, for the feedback
  std::promise<Verdict> promise;
};

SlurmOptions slurm_options(const Config& c) {
  SlurmOptions o;
  o.partition = c.str("slurm.partition");
  o.sbatch_args = split_words(c.str("slurm.args"));
  o.max_in_flight = static_cast<int>(c.integer("slurm.max_in_flight"));
  o.poll_s = c.real("slurm.poll_s");
  o.retries = static_cast<int>(c.integer("slurm.retries"));
  o.start_timeout_s = c.real("slurm.start_timeout_s");
  o.keep_files = c.boolean("slurm.keep_files");
  if (!c.str("slurm.evokernel").empty()) o.evokernel = c.str("slurm.evokernel");
  if (!c.str("slurm.node_scratch").empty()) o.node_scratch = c.str("slurm.node_scratch");
  if (o.max_in_flight < 1)
    throw UsageError("slurm.max_in_flight (--max-in-flight) must be at least 1");
  if (o.poll_s <= 0) throw UsageError("slurm.poll_s must be positive, e.g. 0.5");
  if (o.retries < 0) throw UsageError("slurm.retries must be 0 or more");
  return o;
}

void slurm_preflight(const SlurmOptions& o) {
  for (const char* p : {"sbatch", "squeue", "scancel", "sinfo"})
    if (!on_path(p))
      throw UsageError(std::string("--executor slurm needs Slurm's `") + p +
                       "` on PATH: install slurm-client (Debian) or load your cluster's Slurm "
                       "module, or use --executor local");
  ProcessOptions po;
  po.timeout_s = 30;
  ProcessResult r = run_process({"sinfo", "-h", "-o", "%P"}, po);
  if (!r.ok()) {
    std::string why = first_line(r.err.empty() ? r.describe() : r.err);
    throw UsageError("cannot reach the Slurm controller (" + why +
                     "): check that slurmctld is up (`scontrol ping`) and that SLURM_CONF names "
                     "the cluster's slurm.conf");
  }
  if (!o.partition.empty()) {
    std::vector<std::string> names;
    bool found = false;
    for (std::string p : split_words(r.out)) {
      if (!p.empty() && p.back() == '*') p.pop_back();  // sinfo marks the default partition
      found = found || p == o.partition;
      names.push_back(p);
    }
    if (!found) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw UsageError("Slurm partition '" + o.partition + "' does not exist: use one of " +
                       (list.empty() ? "(none listed by sinfo)" : list) + " with --partition");
    }
  }
  if (!o.evokernel.empty() && ::access(o.evokernel.c_str(), X_OK) != 0)
    throw UsageError("slurm.evokernel '" + o.evokernel.string() +
                     "' is not an executable: point it at evokernel on the shared filesystem");
}

SlurmExecutor::SlurmExecutor(SlurmOptions o) : o_(std::move(o)) {
  if (o_.workspace.empty()) throw Error("SlurmExecutor needs the shared workspace folder");
  o_.workspace = fs::absolute(o_.workspace);
  if (o_.jobs_dir.empty()) o_.jobs_dir = o_.workspace / "slurm";
  if (o_.evokernel.empty()) o_.evokernel = fs::read_symlink("/proc/self/exe");
  char host[256] = "host";
  ::gethostname(host, sizeof host - 1);
  session_ = fmt::format("evk-{}-{}-{}", host, ::getpid(), g_sessions++);
  dir_ = o_.jobs_dir / session_;  // created on the first submission: constructing writes nothing
  poller_ = std::thread([this] { poll_loop(); });
}

SlurmExecutor::~SlurmExecutor() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  poller_.join();
  cancel_all("the Slurm executor was closed before the job finished");
  std::error_code ec;
  if (!o_.keep_files) fs::remove_all(dir_, ec);
}

int SlurmExecutor::submitted() const {
  std::lock_guard lk(mu_);
  return submitted_;
}

std::shared_ptr<SlurmExecutor::Job> SlurmExecutor::enqueue(const TaskInfo& task,
                                                           const std::string& source,
                                                           const VerifyOptions& opt) {
  auto job = std::make_shared<Job>();
  job->body = to_json(VerifyJob{task, source, opt, o_.oracle, o_.workspace, o_.node_scratch});
  std::lock_guard lk(mu_);
  if (closed_) {
    job->done = true;
    job->promise.set_value(infra_verdict("not submitted: the Slurm executor was cancelled"));
  } else {
    queue_.push_back(job);
  }
  wake_.notify_all();
  return job;
}

Verdict SlurmExecutor::verify(const TaskInfo& task, const std::string& source,
                              const VerifyOptions& opt) {
  return enqueue(task, source, opt)->promise.get_future().get();
}

std::vector<Verdict> SlurmExecutor::verify_batch(const VerifyWork& work, const VerifyOptions& opt) {
  std::vector<std::future<Verdict>> futures;
  for (const auto& [task, source] : work)
    futures.push_back(enqueue(*task, source, opt)->promise.get_future());
  std::vector<Verdict> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

void SlurmExecutor::poll_loop() {
  std::unique_lock lk(mu_);
  while (!stop_) {
    lk.unlock();
    submit_some();
    watch();
    lk.lock();
    // Wake early for new work that fits; otherwise poll again after poll_s.
    wake_.wait_for(lk, std::chrono::duration<double>(o_.poll_s), [&] {
      return stop_ || (!queue_.empty() && static_cast<int>(in_flight_.size()) < o_.max_in_flight);
    });
  }
}

// Everything waiting that fits under max_in_flight goes in one submission: a job array when
// there are several, so a batch costs one sbatch and one scheduler pass.
void SlurmExecutor::submit_some() {
  std::vector<std::shared_ptr<Job>> batch;
  int b = 0;
  {
    std::lock_guard lk(mu_);
    if (closed_ || stop_) return;
    while (!queue_.empty() && static_cast<int>(in_flight_.size()) < o_.max_in_flight) {
      batch.push_back(queue_.front());
      queue_.pop_front();
      in_flight_.push_back(batch.back());  // visible to cancel_all while sbatch runs
    }
    if (batch.empty()) return;
    b = next_file_++;
  }
  const bool array = batch.size() > 1;
  fs::path script = dir_ / fmt::format("b{}.sh", b);
  ProcessResult r;
  try {
    fs::create_directories(dir_);
    for (size_t k = 0; k < batch.size(); ++k) {
      batch[k]->file = dir_ / fmt::format("b{}-{}.json", b, k);
      write_file_atomic(batch[k]->file, batch[k]->body.dump());
    }
    // The index comes from Slurm at run time; a single job is index 0.
    write_file_atomic(script,
                      fmt::format("#!/bin/sh\n# evokernel verification batch {}\n"
                                  "exec '{}' verify-job \"{}/b{}-${{SLURM_ARRAY_TASK_ID:-0}}"
                                  ".json\"\n",
                                  b, o_.evokernel.string(), dir_.string(), b));
    std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + session_,
                                     "--output=" + (dir_ / fmt::format("b{}-%a.log", b)).string()};
    if (!array)  // %a is not an index outside arrays
      argv.back() = "--output=" + (dir_ / fmt::format("b{}-0.log", b)).string();
    if (!o_.partition.empty()) argv.push_back("--partition=" + o_.partition);
    if (array) argv.push_back(fmt::format("--array=0-{}", batch.size() - 1));
    argv.insert(argv.end(), o_.sbatch_args.begin(), o_.sbatch_args.end());
    argv.push_back(script.string());
    ProcessOptions po;
    po.timeout_s = 60;
    r = run_process(argv, po);
  } catch (const std::exception& e) {
    r.exit_code = 1;
    r.err = e.what();
  }

  std::vector<std::string> orphans;  // submitted after cancel_all answered them
  std::lock_guard lk(mu_);
  std::string id = first_line(r.out);
  id = id.substr(0, id.find(';'));  // --parsable: "jobid" or "jobid;cluster"
  if (r.ok() && !id.empty()) {
    submitted_ += static_cast<int>(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) {
      Job& j = *batch[k];
      j.slurm_id = array ? fmt::format("{}_{}", id, k) : id;
      j.tries++;
      j.submitted_at = now_s();
      j.gone_since = -1;
      if (j.done || closed_) orphans.push_back(j.slurm_id);
    }
  } else {
    std::string why = "sbatch " + r.describe() + ": " + first_line(r.err);
    for (auto& j : batch) {
      if (j->done) continue;
      j->tries++;
      j->history += why + "; ";
      if (j->tries > o_.retries) {
        finish(*j, infra_verdict("could not submit the verification to Slurm: " + why +
                                 " (check --partition and --slurm-arg)"));
      } else {
        std::erase(in_flight_, j);
        queue_.push_front(j);
      }
    }
  }
  if (!orphans.empty()) scancel(orphans);
}

// One squeue for all of this executor's jobs, then per job: its verdict file, else its state.
void SlurmExecutor::watch() {
  std::vector<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard lk(mu_);
    for (const auto& j : in_flight_)
      if (!j->slurm_id.empty() && !j->done) jobs.push_back(j);
  }
  if (jobs.empty()) return;
  // Files first: a verdict on disk is an answer whatever the queue says.
  std::vector<std::shared_ptr<Job>> open;
  for (const auto& j : jobs) {
    fs::path vf = verdict_path(j->file);
    std::error_code ec;
    if (!fs::exists(vf, ec)) {
      open.push_back(j);
      continue;
    }
    Verdict v;
    try {
      v = verdict_from_json(json::parse(read_file(vf)));
    } catch (const std::exception& e) {
      v = infra_verdict("the verdict file " + vf.string() + " is unreadable: " + e.what());
    }
    std::lock_guard lk(mu_);
    finish(*j, std::move(v));
  }
  if (open.empty()) return;

  ProcessOptions po;
  po.timeout_s = 30;
  ProcessResult r =
      run_process({"squeue", "-h", "-r", "-t", "all", "-n", session_, "-o", "%i|%T|%r"}, po);
  std::map<std::string, std::pair<std::string, std::string>> states;  // id -> (state, reason)
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    auto a = line.find('|'), b = line.find('|', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    states[line.substr(0, a)] = {line.substr(a + 1, b - a - 1), line.substr(b + 1)};
  }

  std::vector<std::string> to_cancel;
  {
    std::lock_guard lk(mu_);
    double now = now_s();
    if (!r.ok()) {
      // The controller not answering is not a job lost: wait, up to a bound.
      if (unreachable_since_ < 0) unreachable_since_ = now;
      if (now - unreachable_since_ > o_.unreachable_timeout_s)
        for (const auto& j : open)
          finish(*j, infra_verdict(fmt::format(
                         "the Slurm controller did not answer for {:.0f} s (squeue: {}); "
                         "job {} abandoned",
                         now - unreachable_since_, first_line(r.err), j->slurm_id)));
      return;
    }
    unreachable_since_ = -1;
    for (const auto& j : open) {
      if (j->done) continue;
      auto it = states.find(j->slurm_id);
      const std::string state = it == states.end() ? "" : it->second.first;
      if (is_waiting(state)) {
        j->gone_since = -1;
        if (o_.start_timeout_s > 0 && now - j->submitted_at > o_.start_timeout_s) {
          to_cancel.push_back(j->slurm_id);
          finish(*j, infra_verdict(fmt::format(
                         "Slurm job {} did not start within {:.0f} s (reason: {}): raise "
                         "slurm.start_timeout_s or choose another --partition",
                         j->slurm_id, o_.start_timeout_s, it->second.second)));
        }
      } else if (is_running(state)) {
        j->gone_since = -1;
        if (j->started_at == 0) j->started_at = now;
      } else if (j->gone_since < 0) {
        // Ended (any final state) or gone from the queue without a verdict on disk yet: the
        // file may still be on its way through the shared filesystem's caches.
        j->gone_since = now;
      } else if (now - j->gone_since > o_.grace_s) {
        lost(j, fmt::format("job {} ended {} without a verdict", j->slurm_id,
                            state.empty() ? "(gone from the queue)" : state));
      }
    }
  }
  if (!to_cancel.empty()) scancel(to_cancel);
}

void SlurmExecutor::lost(const std::shared_ptr<Job>& job, const std::string& why) {
  fs::path log = job->file;
  log.replace_extension(".log");
  std::string log_tail = tail_of_file(log, 400);
  job->history += why + (log_tail.empty() ? "" : " (log: " + log_tail + ")") + "; ";
  if (job->tries <= o_.retries && !closed_) {
    std::error_code ec;
    if (!o_.keep_files) fs::remove(job->file, ec);
    job->slurm_id.clear();
    job->gone_since = -1;
    std::erase(in_flight_, job);
    queue_.push_front(job);  // resubmitted ahead of newer work
    return;
  }
  finish(*job, infra_verdict("the cluster lost this verification, so it says nothing about the "
                             "kernel: " +
                             job->history));
}

void SlurmExecutor::finish(Job& job, Verdict v) {
  if (job.done || abandoned_) return;
  job.done = true;
  std::erase_if(in_flight_, [&](const auto& p) { return p.get() == &job; });
  std::erase_if(queue_, [&](const auto& p) { return p.get() == &job; });
  v.metrics["executor"] = "slurm";
  if (!job.slurm_id.empty()) v.metrics["slurm_job"] = job.slurm_id;
  v.metrics["slurm_submissions"] = job.tries;
  if (!o_.keep_files && !job.file.empty()) {
    std::error_code ec;
    fs::path log = job.file;
    fs::remove(verdict_path(job.file), ec);
    fs::remove(log.replace_extension(".log"), ec);
    fs::remove(job.file, ec);
  }
  job.promise.set_value(std::move(v));
  wake_.notify_all();  // a slot is free: the poller may submit at once
}

void SlurmExecutor::cancel_all(const std::string& why) {
  std::vector<std::string> ids;
  {
    std::lock_guard lk(mu_);
    closed_ = true;
    std::vector<std::shared_ptr<Job>> all(in_flight_.begin(), in_flight_.end());
    all.insert(all.end(), queue_.begin(), queue_.end());
    for (const auto& j : all) {
      if (!j->slurm_id.empty()) ids.push_back(j->slurm_id);
      finish(*j, infra_verdict(why));
    }
  }
  scancel(ids);
}

void SlurmExecutor::abandon() {
  std::vector<std::string> ids;
  {
    std::lock_guard lk(mu_);
    closed_ = abandoned_ = true;
    for (const auto& j : in_flight_)
      if (!j->slurm_id.empty()) ids.push_back(j->slurm_id);
  }
  scancel(ids);
  std::error_code ec;
  if (!o_.keep_files) fs::remove_all(dir_, ec);
}

void SlurmExecutor::scancel(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  std::vector<std::string> argv = {"scancel", "--quiet"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  ProcessOptions po;
  po.timeout_s = 30;
  run_process(argv, po);  // best effort: a job already gone is fine
}

}  // namespace evk
