#include <gtest/gtest.h>

#include <algorithm>

#include "memory/knowledge.h"
#include "memory/writers.h"
#include "core/error.h"

namespace evk {
namespace {

bool writers_has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const std::string kFailed =
    "#include \"evokernel/kernel_abi.h\"\n"
    "// evk-pitfall: hardcoded_shape\n"
    "int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {\n"
    "  for (int i = 0; i < 1024; ++i) y[i] = x[i] > 0 ? x[i] : 0;\n"
    "  return 0;\n"
    "}\n";
const std::string kFixed =
    "#include \"evokernel/kernel_abi.h\"\n"
    "int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {\n"
    "  int64_t n = in[0].shape[0];\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0;\n"
    "  return 0;\n"
    "}\n";

TEST(Writers, PitfallMarkersAreFoundAndKeptVerbatim) {
  EXPECT_EQ(pitfall_names(kFailed), (std::vector<std::string>{"hardcoded_shape"}));
  EXPECT_EQ(pitfall_lines(kFailed), (std::vector<std::string>{"// evk-pitfall: hardcoded_shape"}));
  EXPECT_TRUE(pitfall_names(kFixed).empty());
}

TEST(Writers, TraceOfAFailureCarriesOpsCategoryAndMarkers) {
  TraceInput in;
  in.task = "relu";
  in.ops = {"relu"};
  in.code = kFailed;
  in.category = Category::Mismatch;
  in.feedback = "3 of 4096 elements differ";
  Item t = make_trace(in);
  EXPECT_EQ(t.kind, ItemKind::Trace);
  EXPECT_EQ(t.origin_task, "relu");
  EXPECT_TRUE(writers_has(t.tags, "relu"));
  EXPECT_TRUE(writers_has(t.tags, "mismatch"));
  EXPECT_TRUE(writers_has(t.tags, "hardcoded_shape"));
  EXPECT_NE(t.body.find("// evk-pitfall: hardcoded_shape"), std::string::npos);
  EXPECT_NE(t.body.find("3 of 4096 elements differ"), std::string::npos);
  EXPECT_EQ(t.code, kFailed);  // the marker stays in the code too
  EXPECT_NE(t.title.find("failed (mismatch)"), std::string::npos);

  in.code = kFixed;
  in.category = Category::Ok;
  in.feedback.clear();
  in.feasible = true;
  in.latency_ms = 1.25;
  in.parent = 7;
  Item ok = make_trace(in);
  EXPECT_TRUE(ok.feasible);
  EXPECT_EQ(ok.latency_ms, 1.25);
  EXPECT_EQ(ok.parent, 7);
  EXPECT_NE(ok.title.find("1.25 ms"), std::string::npos);
}

TEST(Writers, ExperienceSaysWhatFailedAndWhatFixedIt) {
  ExperienceInput in;
  in.task = "relu";
  in.ops = {"relu"};
  in.failed_code = kFailed;
  in.category = Category::Mismatch;
  in.feedback = "max abs err 3.2 at index 1024";
  in.fixed_code = kFixed;
  Item e = make_experience(in);
  EXPECT_EQ(e.kind, ItemKind::Experience);
  EXPECT_NE(e.body.find("What failed: mismatch: max abs err 3.2"), std::string::npos);
  EXPECT_NE(e.body.find("- // evk-pitfall: hardcoded_shape"), std::string::npos);  // in the diff
  EXPECT_NE(e.body.find("+   int64_t n = in[0].shape[0];"), std::string::npos);
  EXPECT_NE(e.body.find("Pitfall markers:\n// evk-pitfall: hardcoded_shape"), std::string::npos);
  EXPECT_TRUE(writers_has(e.tags, "hardcoded_shape"));
  EXPECT_EQ(e.code, kFixed);

  // An LLM summariser replaces the text, but the markers are kept; a failing one is ignored.
  Item s = make_experience(in, [](const std::string& rules) {
    EXPECT_NE(rules.find("What fixed it"), std::string::npos);
    return std::string("Read n from the tensor shape.");
  });
  EXPECT_EQ(s.body.rfind("Read n from the tensor shape.", 0), 0u);
  EXPECT_NE(s.body.find("// evk-pitfall: hardcoded_shape"), std::string::npos);
  Item f = make_experience(in, [](const std::string&) -> std::string { throw std::runtime_error("down"); });
  EXPECT_EQ(f.body, e.body);
}

TEST(Writers, BestPracticeNamesTheChangeAndTheSpeedUp) {
  std::string faster = kFixed;
  faster.insert(faster.find("  for"), "  #pragma omp parallel for simd\n");
  BestPracticeInput in;
  in.task = "relu";
  in.ops = {"relu"};
  in.start_code = kFixed;
  in.start_ms = 4.0;
  in.new_code = faster;
  in.new_ms = 1.0;
  Item b = make_best_practice(in);
  EXPECT_EQ(b.kind, ItemKind::BestPractice);
  EXPECT_TRUE(b.feasible);
  EXPECT_EQ(b.latency_ms, 1.0);
  EXPECT_TRUE(writers_has(b.tags, "parallelise"));
  EXPECT_TRUE(writers_has(b.tags, "vectorise"));
  EXPECT_NE(b.title.find("4.00x faster"), std::string::npos);
  EXPECT_NE(b.body.find("+   #pragma omp parallel for simd"), std::string::npos);
}

TEST(Writers, DiffSummaryIsALineDiffCappedInLength) {
  EXPECT_EQ(diff_summary("a\nb\nc\n", "a\nB\nc\n"), "- b\n+ B");
  EXPECT_EQ(diff_summary("same\n", "same\n"), "(no change)");
  std::string big;
  for (int i = 0; i < 100; ++i) big += "line " + std::to_string(i) + "\n";
  std::string d = diff_summary("", big, 10);
  EXPECT_NE(d.find("... (90 more changed lines)"), std::string::npos);
}

TEST(Knowledge, FrontMatterIsParsedAndErrorsNameTheFile) {
  Item it = parse_knowledge("---\nkind: api\ntitle: \"Guide\"\ntags: [guide, 'x y']\n---\nBody text\n",
                            "cpu", "cpu/guide.md");
  EXPECT_EQ(it.kind, ItemKind::Api);
  EXPECT_EQ(it.title, "Guide");
  EXPECT_EQ(it.tags, (std::vector<std::string>{"guide", "x y"}));
  EXPECT_EQ(it.body, "Body text");
  try {
    parse_knowledge("no front matter", "cpu", "cpu/bad.md");
    FAIL() << "accepted a file without front matter";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu/bad.md"), std::string::npos);
  }
  EXPECT_THROW(parse_knowledge("---\nkind: wisdom\n---\n", "cpu", "x"), UsageError);
  EXPECT_THROW(parse_knowledge("---\nkind: api\ncolour: red\n---\n", "cpu", "x"), UsageError);
  EXPECT_THROW(parse_knowledge("---\nkind: api\n", "cpu", "x"), UsageError);
}

}  // namespace
}  // namespace evk
