// The backend registry (backends/registry.h) is the one table every consumer reads: these
// tests hold its rows to the classes they make, the runner spec the verifier gets, the
// knowledge bundles on disk and the sim's generators.
#include "backends/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "backends/backend.h"
#include "core/error.h"
#include "core/paths.h"
#include "sim/sim.h"
#include "verify/verifier.h"

namespace evk {
namespace {

namespace fs = std::filesystem;

TEST(Registry, EachRowMakesItsBackendAndGivesItsRunner) {
  std::vector<std::string> names;
  for (const auto& row : backend_rows()) {
    names.push_back(row.name);
    auto b = row.make();
    ASSERT_TRUE(b);
    EXPECT_EQ(b->name(), row.name);
    EXPECT_EQ(make_backend(row.name)->name(), row.name);
    RunnerSpec spec = b->runner(fs::temp_directory_path());
    EXPECT_EQ(spec.executable, row.runner) << row.name;
    EXPECT_EQ(spec.device_nodes, row.device_nodes) << row.name;
    EXPECT_EQ(spec.system_dirs, row.system_dirs) << row.name;
    EXPECT_EQ(b->modeled_latency(), row.timing == Timing::Modeled) << row.name;
    // The verifier hands the row's passthroughs to the runner's jail.
    RunnerLimits lim = runner_limits(spec, VerifyOptions{});
    EXPECT_EQ(lim.executable, row.runner);
    EXPECT_EQ(lim.device_nodes, row.device_nodes);
    EXPECT_EQ(lim.system_dirs, row.system_dirs);
    EXPECT_TRUE(fs::is_regular_file(b->knowledge_dir() / "guide.md")) << b->knowledge_dir();
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "a name twice";
  EXPECT_EQ(names, backend_names());
}

TEST(Registry, AnUnknownNameListsTheKnownOnes) {
  try {
    make_backend("vulkan");
    FAIL();
  } catch (const UsageError& e) {
    std::string m = e.what();
    for (const auto& n : backend_names()) EXPECT_NE(m.find(n), std::string::npos) << m;
  }
}

// The sim keeps its own generator table (it depends on core only); it must cover the registry.
TEST(Registry, TheSimHasAGeneratorForEveryBackend) {
  EXPECT_EQ(sim_backends(), backend_names());
}

}  // namespace
}  // namespace evk
