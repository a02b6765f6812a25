// The verdict cache key: every option that can change a verdict changes the key.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/workspace.h"
#include "core/temp_dir.h"
#include "verify/runner_client.h"
#include "verify/verifier.h"

namespace evk {
namespace {

TEST(VerdictKey, EveryOptionThatCanChangeAVerdictChangesTheKey) {
  TempDir d("evk-key-");
  Workspace ws(d.path() / "ws");
  Verifier v(ws, OracleOptions{});
  TaskInfo task;
  task.id = "relu";
  task.content_hash = "abc123";
  const std::string src = "extern \"C\" int evk_forward() { return 0; }";
  VerifyOptions base;
  const std::vector<std::pair<std::string, std::function<void(VerifyOptions&)>>> changes = {
      {"backend", [](VerifyOptions& o) { o.backend = "opencl"; }},
      {"seeds", [](VerifyOptions& o) { o.seeds = 4; }},
      {"atol", [](VerifyOptions& o) { o.atol = 1e-3; }},
      {"rtol", [](VerifyOptions& o) { o.rtol = 1e-3; }},
      {"rel_norm_bound", [](VerifyOptions& o) { o.rel_norm_bound = 1e-3; }},
      {"threads", [](VerifyOptions& o) { o.threads = 2; }},
      {"compile_timeout_s", [](VerifyOptions& o) { o.compile_timeout_s = 30; }},
      {"run_timeout_s", [](VerifyOptions& o) { o.run_timeout_s = 5; }},
      {"address_space_mb", [](VerifyOptions& o) { o.address_space_mb = 1024; }},
      {"timing_budget_ms", [](VerifyOptions& o) { o.timing_budget_ms = 50; }},
      {"timing_max_trials", [](VerifyOptions& o) { o.timing_max_trials = 7; }},
      {"too_fast_fraction", [](VerifyOptions& o) { o.too_fast_fraction = 0.5; }},
      {"static_source_gate", [](VerifyOptions& o) { o.static_source_gate = false; }},
      {"edge_set", [](VerifyOptions& o) { o.edge_set = false; }},
      {"second_shape", [](VerifyOptions& o) { o.second_shape = false; }},
  };
  // Each field of verdict_key_options has a change here (a new field needs one); the jail
  // mode is process-wide and checked below.
  EXPECT_EQ(verdict_key_options(base).size(), changes.size() + 1);
  std::set<std::string> keys = {v.cache_key(task, src, base)};
  for (const auto& [name, change] : changes) {
    VerifyOptions o = base;
    change(o);
    EXPECT_TRUE(keys.insert(v.cache_key(task, src, o)).second) << name << " does not change the key";
  }
  set_unsafe_no_jail(true);
  EXPECT_TRUE(keys.insert(v.cache_key(task, src, base)).second) << "the jail mode does not change the key";
  set_unsafe_no_jail(false);
  VerifyOptions o = base;
  o.use_cache = false;  // whether to use the cache cannot change a verdict
  EXPECT_EQ(v.cache_key(task, src, o), v.cache_key(task, src, base));
  TaskInfo other = task;
  other.content_hash = "def456";
  EXPECT_NE(v.cache_key(other, src, base), v.cache_key(task, src, base));
  EXPECT_NE(v.cache_key(task, src + " ", base), v.cache_key(task, src, base));
}

}  // namespace
}  // namespace evk
