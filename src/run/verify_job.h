// One verification as a file: what `evokernel verify-job JOB.json` needs on a cluster node, and
// the verdict it leaves next to it (JOB.verdict.json). The job carries everything that decides
// the verdict (the task with its Python source, the candidate, VerifyOptions, OracleOptions),
// so a node needs only the evokernel install and the shared workspace folder.
//
// Concurrency on a shared filesystem (NFS, Lustre, GPFS): SQLite over NFS is a hazard, so a
// job never opens the shared workspace's database. It verifies in a node-local scratch
// workspace (its own database: peaks measured per node, a per-node verdict cache) whose
// cache/refs is a link to the shared workspace's references, which are written whole into a
// private folder and renamed into place (tasks/oracle.cpp), so concurrent jobs share them
// safely. The only file a job writes in the job folder is its verdict, atomically (rename).
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/verdict.h"
#include "tasks/oracle.h"
#include "tasks/task.h"
#include "verify/verifier.h"

namespace evk {

struct VerifyJob {
  TaskInfo task;
  std::string source;
  VerifyOptions verify;
  OracleOptions oracle;
  std::filesystem::path workspace;  // the shared workspace (its cache/refs is reused)
  std::filesystem::path scratch;    // node-local scratch workspace; empty: default_scratch()
};

nlohmann::json to_json(const VerifyJob& job);
// Throws Error naming the missing or malformed field.
VerifyJob verify_job_from_json(const nlohmann::json& j);

// X.json -> X.verdict.json
std::filesystem::path verdict_path(const std::filesystem::path& job_file);

// $TMPDIR (else /tmp) / evk-node-<hash of the shared workspace path>: one per workspace and node.
std::filesystem::path default_scratch(const std::filesystem::path& workspace);

// The node side: reads the job, verifies, writes the verdict file atomically and returns it.
// A failure of the machinery (unreadable job, oracle or runner failing to start) is written as
// an `infra` verdict; throws only when not even that can be written.
Verdict run_verify_job(const std::filesystem::path& job_file);

}  // namespace evk
