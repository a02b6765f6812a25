// A job file carries everything that decides a verdict: written on the controller, read on a
// node, nothing may be lost or defaulted on the way.
#include <gtest/gtest.h>

#include "core/error.h"
#include "run/verify_job.h"

namespace evk {
namespace {

VerifyJob sample_job() {
  VerifyJob job;
  job.task.id = "relu";
  job.task.path = "/suites/level1/relu.py";
  job.task.level = 1;
  job.task.source = "import torch\n";
  job.task.content_hash = "abc";
  job.task.ok = true;
  job.task.fitted["DIM"] = {393216, 3072};
  job.source = "extern \"C\" int evk_forward();";
  job.verify.backend = "opencl";
  job.verify.seeds = 5;
  job.verify.atol = 1e-3;
  job.verify.threads = 2;
  job.verify.address_space_mb = 4096;
  job.verify.static_source_gate = false;
  job.oracle.max_elements = 65536;
  job.oracle.timing_runs = 7;
  job.oracle.python = "/opt/py/bin/python3";
  job.workspace = "/shared/ws";
  return job;
}

TEST(VerifyJob, RoundTripsEveryField) {
  VerifyJob back = verify_job_from_json(nlohmann::json::parse(to_json(sample_job()).dump()));
  EXPECT_EQ(back.task.id, "relu");
  EXPECT_EQ(back.task.fitted.at("DIM").second, 3072);
  EXPECT_EQ(back.source, sample_job().source);
  EXPECT_EQ(back.verify.backend, "opencl");
  EXPECT_EQ(back.verify.seeds, 5);
  EXPECT_DOUBLE_EQ(back.verify.atol, 1e-3);
  EXPECT_EQ(back.verify.threads, 2);
  EXPECT_EQ(back.verify.address_space_mb, 4096u);
  EXPECT_FALSE(back.verify.static_source_gate);
  EXPECT_EQ(back.oracle.max_elements, 65536);
  EXPECT_EQ(back.oracle.timing_runs, 7);
  EXPECT_EQ(back.oracle.python, "/opt/py/bin/python3");
  EXPECT_EQ(back.workspace, "/shared/ws");
}

TEST(VerifyJob, AMissingFieldIsAnErrorNotADefault) {
  nlohmann::json j = to_json(sample_job());
  j["verify"].erase("seeds");
  EXPECT_THROW(verify_job_from_json(j), Error);
  j = to_json(sample_job());
  j["format"] = 2;
  EXPECT_THROW(verify_job_from_json(j), Error);
}

}  // namespace
}  // namespace evk
