// `evokernel memory ...` end to end through the real binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include "helpers.h"

namespace evk {
namespace {

struct Result {
  int code;
  std::string out;
};

Result run(const std::string& args) {
  // Auto-seeding off: the product's knowledge folder is not what these tests are about.
  std::string cmd = "EVK_MEMORY_AUTO_SEED=false " + std::string(EVK_CLI_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(MemoryCli, SeedListShowExportImportAndErrors) {
  testing::TempDir a, b;
  std::string wa = "--workspace " + a.path().string(), wb = "--workspace " + b.path().string();
  std::string kdir = (testing::test_knowledge() / "cpu").string();

  auto help = run("memory --help");
  EXPECT_EQ(help.code, 0);
  for (const char* sub : {"stats", "list", "top", "show", "export", "import", "prune"})
    EXPECT_NE(help.out.find(sub), std::string::npos) << sub;
  EXPECT_EQ(run("memory import --help").code, 0);
  EXPECT_NE(run("memory import --help").out.find("--exclude-tasks"), std::string::npos);

  auto seed = run("memory seed --dir " + kdir + " " + wa);
  ASSERT_EQ(seed.code, 0) << seed.out;
  EXPECT_NE(seed.out.find("4 items added"), std::string::npos) << seed.out;
  EXPECT_NE(run("memory seed --dir " + kdir + " " + wa).out.find("0 items added"), std::string::npos);

  auto list = run("memory list --kind api " + wa);
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("CPU backend guide"), std::string::npos);
  EXPECT_NE(list.out.find("2 items"), std::string::npos);

  auto show = run("memory show 1 " + wa);
  EXPECT_EQ(show.code, 0);
  EXPECT_NE(show.out.find("evk_forward"), std::string::npos);

  auto stats = run("memory stats " + wa);
  EXPECT_EQ(stats.code, 0);
  EXPECT_NE(stats.out.find("items: 4"), std::string::npos) << stats.out;

  EXPECT_EQ(run("memory top --stage refine -n 5 " + wa).code, 0);
  std::string file = (a.path() / "m.jsonl").string();
  EXPECT_EQ(run("memory export " + file + " " + wa).code, 0);
  auto imp = run("memory import " + file + " --exclude-tasks relu,gelu " + wb);
  EXPECT_EQ(imp.code, 0) << imp.out;
  EXPECT_NE(imp.out.find("imported 4 new items"), std::string::npos) << imp.out;
  EXPECT_NE(run("memory prune --dry-run " + wb).out.find("would remove 0 traces"), std::string::npos);

  // Usage errors exit 2 with a message naming the problem.
  auto missing = run("memory show 999 " + wa);
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("no memory item 999"), std::string::npos);
  EXPECT_EQ(run("memory top --stage sideways " + wa).code, 2);
  EXPECT_EQ(run("memory list --kind wisdom " + wa).code, 2);
  EXPECT_EQ(run("memory import /nonexistent.jsonl " + wa).code, 2);
}

}  // namespace
}  // namespace evk
