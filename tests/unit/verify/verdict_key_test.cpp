// The verdict cache key: every input that can change a verdict (an option, the backend's
// runner, a header the compile command can include, the oracle) changes the key; an unchanged
// setup keeps it. Changes are made to temporary copies, never to the tree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <set>

#include "core/paths.h"
#include "core/process.h"
#include "core/temp_dir.h"
#include "core/workspace.h"
#include "verify/runner_client.h"
#include "verify/toolchain.h"
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
      {"instruction_scan", [](VerifyOptions& o) { o.instruction_scan = false; }},
  };
  // Each field of verdict_key_options has a change here (a new field needs one); the jail
  // mode is process-wide and checked below.
  EXPECT_EQ(verdict_key_options(base).size(), changes.size() + 1);
  std::set<std::string> keys = {v.cache_key(task, src, base)};
  for (const auto& [name, change] : changes) {
    VerifyOptions o = base;
    change(o);
    EXPECT_TRUE(keys.insert(v.cache_key(task, src, o)).second)
        << name << " does not change the key";
  }
  set_unsafe_no_jail(true);
  EXPECT_TRUE(keys.insert(v.cache_key(task, src, base)).second)
      << "the jail mode does not change the key";
  set_unsafe_no_jail(false);
  VerifyOptions o = base;
  o.use_cache = false;  // whether to use the cache cannot change a verdict
  EXPECT_EQ(v.cache_key(task, src, o), v.cache_key(task, src, base));
  TaskInfo other = task;
  other.content_hash = "def456";
  EXPECT_NE(v.cache_key(other, src, base), v.cache_key(task, src, base));
  EXPECT_NE(v.cache_key(task, src + " ", base), v.cache_key(task, src, base));
}

namespace fs = std::filesystem;

// Sets an environment variable for the scope, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void append(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::app) << text;
}

// A data root (EVK_HOME) holding copies of the backends' knowledge folders and the oracle,
// and a runner folder (EVK_RUNNER) holding a copy of evk-runner under every runner's name.
struct TempToolchain {
  TempDir dir{"evk-key-setup-"};
  fs::path home = dir.path() / "home", bin = dir.path() / "bin";
  TempToolchain() {
    fs::create_directories(home / "knowledge");
    for (const char* b : {"cpu", "ascendc", "opencl"})
      fs::copy(fs::path(EVK_SOURCE_DIR) / "knowledge" / b, home / "knowledge" / b,
               fs::copy_options::recursive);
    fs::create_directories(home / "oracle");
    fs::create_directories(home / "suites");  // a data root holds all four (core/paths.h)
    fs::create_directories(home / "prompts");
    fs::copy(fs::path(EVK_SOURCE_DIR) / "oracle" / "evk_oracle.py", home / "oracle");
    fs::create_directories(bin);
    for (const char* r : {"evk-runner", "evk-runner-ascendc", "evk-runner-cuda", "evk-clbuild"})
      fs::copy(EVK_RUNNER_PATH, bin / r);
  }
  // Puts a different program (this test binary) in place of runner `name`.
  void rebuild(const std::string& name) const {
    fs::remove(bin / name);
    fs::copy(fs::read_symlink("/proc/self/exe"), bin / name);
  }
};

struct Keys {
  TaskInfo task;
  TempDir d{"evk-key-ws-"};
  Workspace ws{d.path() / "ws"};
  Verifier v{ws, OracleOptions{}};
  Keys() {
    task.id = "relu";
    task.content_hash = "abc123";
  }
  std::string of(const std::string& backend) {
    VerifyOptions o;
    o.backend = backend;
    return v.cache_key(task, "extern \"C\" int evk_forward() { return 0; }", o);
  }
};

TEST(ToolchainKey, IncludeFoldersAreReadFromTheCompileCommand) {
  auto dirs = include_dirs("g++ -O2 -I/a/b -isystem /c -iquote/d -idirafter /e x.cpp -o x.so");
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/a/b");
  EXPECT_EQ(dirs[1], "/c");
  EXPECT_EQ(dirs[2], "/d");
  EXPECT_EQ(dirs[3], "/e");
  EXPECT_TRUE(include_dirs("g++ x.cpp").empty());
}

TEST(ToolchainKey, EveryBackendsKnowledgeFolderIsAnIncludeFolder) {
  for (const char* b : {"cpu", "ascendc", "opencl", "cuda"}) {
    auto dirs = include_dirs(make_backend(b)->compile_command());
    EXPECT_NE(std::find(dirs.begin(), dirs.end(), data_root() / "knowledge" / b), dirs.end()) << b;
  }
}

TEST(ToolchainKey, TreeDigestSeesEveryFileAndNothingElse) {
  TempToolchain s;
  fs::path dir = s.home / "knowledge" / "cpu";
  const std::string d0 = tree_digest(dir);
  EXPECT_EQ(tree_digest(dir), d0);  // unchanged: the same digest
  EXPECT_EQ(tree_digest(s.dir.path() / "missing"), "");
  append(dir / "evokernel" / "kernel_abi.h", "\n// edited\n");
  const std::string d1 = tree_digest(dir);
  EXPECT_NE(d1, d0) << "an edited header";
  fs::create_directories(dir / "deep" / "er");
  append(dir / "deep" / "er" / "new.h", "");
  const std::string d2 = tree_digest(dir);
  EXPECT_NE(d2, d1) << "an empty file added in a subfolder";
  fs::rename(dir / "deep" / "er" / "new.h", dir / "deep" / "er" / "new2.h");
  EXPECT_NE(tree_digest(dir), d2) << "a renamed file";
}

TEST(ToolchainKey, AnUnchangedSetupKeepsItsKey) {
  TempToolchain s;
  ScopedEnv home("EVK_HOME", s.home.string()),
      runner("EVK_RUNNER", (s.bin / "evk-runner").string());
  Keys a, b;  // two verifiers, two workspaces
  for (const char* backend : {"cpu", "ascendc", "opencl"})
    EXPECT_EQ(a.of(backend), b.of(backend)) << backend;
}

TEST(ToolchainKey, TheBackendsOwnRunnerIsInTheKey) {
  TempToolchain s;
  ScopedEnv home("EVK_HOME", s.home.string()),
      runner("EVK_RUNNER", (s.bin / "evk-runner").string());
  Keys k;
  const std::string cpu = k.of("cpu"), asc = k.of("ascendc"), ocl = k.of("opencl");
  s.rebuild("evk-runner-ascendc");  // the cycle model changed: Ascend C verdicts only
  EXPECT_NE(k.of("ascendc"), asc);
  EXPECT_EQ(k.of("cpu"), cpu);
  EXPECT_EQ(k.of("opencl"), ocl);
  const std::string asc2 = k.of("ascendc");
  s.rebuild("evk-runner");  // the CPU runner runs cpu and opencl kernels
  EXPECT_NE(k.of("cpu"), cpu);
  EXPECT_NE(k.of("opencl"), ocl);
  EXPECT_EQ(k.of("ascendc"), asc2);
  const std::string ocl2 = k.of("opencl"), cpu2 = k.of("cpu");
  s.rebuild("evk-clbuild");  // OpenCL's build helper
  EXPECT_NE(k.of("opencl"), ocl2);
  EXPECT_EQ(k.of("cpu"), cpu2);
}

TEST(ToolchainKey, CudaRunnerIsInTheKey) {
  TempToolchain s;
  ScopedEnv home("EVK_HOME", s.home.string()),
      runner("EVK_RUNNER", (s.bin / "evk-runner").string());
  fs::copy(fs::path(EVK_SOURCE_DIR) / "knowledge" / "cuda", s.home / "knowledge" / "cuda",
           fs::copy_options::recursive);
  Keys k;
  const std::string cuda = k.of("cuda");
  s.rebuild("evk-runner-cuda");
  EXPECT_NE(k.of("cuda"), cuda);
}

TEST(ToolchainKey, EveryFileUnderTheIncludeFoldersIsInTheKey) {
  TempToolchain s;
  ScopedEnv home("EVK_HOME", s.home.string()),
      runner("EVK_RUNNER", (s.bin / "evk-runner").string());
  Keys k;
  const std::string cpu = k.of("cpu"), asc = k.of("ascendc");
  append(s.home / "knowledge" / "ascendc" / "kernel_operator.h", "\n// a changed emulation\n");
  EXPECT_NE(k.of("ascendc"), asc);
  EXPECT_EQ(k.of("cpu"), cpu);
  append(s.home / "knowledge" / "cpu" / "evokernel" / "kernel_abi.h", "\n");
  EXPECT_NE(k.of("cpu"), cpu);
}

// The oracle's digest is read once per process: a child process computes the key under a data
// root whose oracle was edited (EVK_KEY_CHILD names the file the child writes its key to).
TEST(ToolchainKey, ChildPrintsKey) {
  const char* out = std::getenv("EVK_KEY_CHILD");
  if (!out) GTEST_SKIP() << "run by OracleCodeIsInTheKey in a child process";
  Keys k;
  std::ofstream(out) << k.of("cpu");
}

std::string child_key(const TempToolchain& s, const fs::path& out) {
  ProcessOptions o;
  o.env = {{"EVK_HOME", s.home.string()},
           {"EVK_RUNNER", (s.bin / "evk-runner").string()},
           {"EVK_KEY_CHILD", out.string()}};
  ProcessResult r = run_process(
      {fs::read_symlink("/proc/self/exe").string(), "--gtest_filter=ToolchainKey.ChildPrintsKey"},
      o);
  EXPECT_TRUE(r.ok()) << r.describe() << r.out << r.err;
  return read_file(out);
}

TEST(ToolchainKey, OracleCodeIsInTheKey) {
  TempToolchain s;
  const std::string k0 = child_key(s, s.dir.path() / "k0");
  EXPECT_EQ(child_key(s, s.dir.path() / "k1"), k0);
  append(s.home / "oracle" / "evk_oracle.py", "\n# edited\n");
  EXPECT_NE(child_key(s, s.dir.path() / "k2"), k0);
}

}  // namespace
}  // namespace evk
