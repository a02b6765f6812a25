// The fixture the sim's end-to-end tests share (sim_tasks_test, sim_cuda_test,
// sim_opencl_test): they all render real prompts from oracle references and verify what the sim
// writes, so the workspace, verifier, templates and loaded suites are set up here once.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "agent/prompt.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "llm/provider.h"
#include "sim/sim.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk {

class SimFixture : public ::testing::Test {
 protected:
  static constexpr int64_t kMaxElements = 65536;

  static void SetUpTestSuite() {
    ws_ = new Workspace(std::filesystem::path(EVK_BINARY_DIR) / "sim-test-ws");
    OracleOptions oo;
    oo.max_elements = kMaxElements;
    oo.timing_runs = 3;
    verifier_ = new Verifier(*ws_, oo);
    templates_ = new PromptTemplates(data_root() / "prompts");
  }
  static void TearDownTestSuite() {
    delete templates_;
    delete verifier_;
    delete ws_;
    suites_.clear();
  }

  static const TaskInfo& task(const std::string& suite, const std::string& id) {
    if (!suites_.count(suite))
      suites_[suite] = std::make_unique<Suite>(load_suite(*ws_, "builtin:" + suite, kMaxElements));
    return find_task(*suites_[suite], id);
  }

  // The draft prompt for `t` on a backend, or the refine prompt when start_code is given.
  static std::string render_for(const TaskInfo& t, const std::string& backend,
                                const std::string& language, const std::string& source_filename,
                                const std::string& start_code) {
    Reference ref = oracle_reference(*ws_, t, 0, verifier_->oracle_options());
    PromptInputs in;
    in.backend = backend;
    in.language = language;
    in.source_filename = source_filename;
    in.guide = "(the guide)";
    in.task = &t;
    in.ref = &ref;
    if (start_code.empty()) return templates_->draft(in);
    PromptAttempt sp;
    sp.idx = 1;
    sp.code = start_code;
    sp.latency_ms = 1;
    in.start_point = sp;
    return templates_->refine(in);
  }

  static SimOptions clean() {
    SimOptions o;
    o.pitfalls = false;
    return o;
  }

  static inline Workspace* ws_ = nullptr;
  static inline Verifier* verifier_ = nullptr;
  static inline PromptTemplates* templates_ = nullptr;
  static inline std::map<std::string, std::unique_ptr<Suite>> suites_;
};

}  // namespace evk
