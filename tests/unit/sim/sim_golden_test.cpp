// The sim's replies, byte for byte, to recorded prompts (tests/data/sim_golden/, one case per
// file: `# seed S sha256 H` lines, `---`, then the prompt as a run rendered it). A change to the
// simulator that changes what it writes for a prompt and seed shows here, named by the case:
// refactorings must keep every digest; a deliberate change of the sim's behaviour rewrites the
// digests it changes and says why in its commit. The suite-SUITE-TASK cases hold the CPU draft
// prompt of every built-in task as the sim tests render it (the guide elided: the sim reads
// only the task and its op list), so every op template the suites reach is pinned.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/hash.h"
#include "sim/sim.h"

namespace evk {
namespace {

namespace fs = std::filesystem;

fs::path golden_dir() { return fs::path(EVK_SOURCE_DIR) / "tests" / "data" / "sim_golden"; }

std::vector<fs::path> all_cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(golden_dir()))
    if (e.path().extension() == ".case") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class SimGolden : public ::testing::TestWithParam<fs::path> {};

TEST_P(SimGolden, ReplyDigestIsUnchanged) {
  std::ifstream in(GetParam(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t sep = text.find("---\n");
  ASSERT_NE(sep, std::string::npos) << GetParam() << ": no `---` line before the prompt";
  std::string prompt = text.substr(sep + 4);
  std::istringstream header(text.substr(0, sep));
  int checked = 0;
  for (std::string line; std::getline(header, line);) {
    uint64_t seed = 0;
    char sha[65] = {};
    ASSERT_EQ(std::sscanf(line.c_str(), "# seed %lu sha256 %64s", &seed, sha), 2) << line;
    EXPECT_EQ(sha256_hex(sim_reply(prompt, seed)), sha) << GetParam().filename() << " seed " << seed;
    ++checked;
  }
  EXPECT_GT(checked, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Recorded, SimGolden, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<fs::path>& i) {
                           std::string n = i.param.stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace evk
