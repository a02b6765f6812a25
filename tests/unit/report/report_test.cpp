#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "core/paths.h"
#include "core/process.h"
#include "fixture.h"
#include "report/html_report.h"

namespace evk {
namespace {

using testing::TempDir;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

struct Rendered {
  TempDir tmp;
  std::string html;
  int64_t run1 = 0, run2 = 0;
};

// Run 1 (sim) compared with run 2 (an LLM run of the same shape).
std::unique_ptr<Rendered> render_two() {
  auto r = std::make_unique<Rendered>();
  Workspace ws(r->tmp.path() / "ws");
  r->run1 = testing::build_run(ws, true).id;
  r->run2 = testing::build_run(ws, false, 8).id;
  RunStore store(ws);
  std::vector<RunData> runs = {load_run(store, r->run1), load_run(store, r->run2)};
  r->html = render_report(runs, {.generated = "2026-01-01 00:00 UTC"});
  return r;
}

TEST(HtmlReport, HasTheSummaryChartsTablesAndNothingExternal) {
  auto r = render_two();
  const std::string& h = r->html;
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id : {"summary", "progress", "speedups", "failures", "memory", "tasks"})
    EXPECT_NE(h.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
  // Summary first: the metrics table comes before every chart.
  EXPECT_LT(h.find("<table class=\"summary\">"), h.find("<svg class=\"chart"));
  // Acc curve, fast_p, two histograms, failures, and Q trajectories (2 stages x 2 runs).
  EXPECT_EQ(count(h, "<svg class=\"chart"), 9u);
  EXPECT_GE(count(h, "<svg class=\"spark\""), 4u);
  EXPECT_EQ(count(h, "<table class=\"tasks\">"), 2u);
  // Per level and overall, for both runs.
  EXPECT_EQ(count(h, "<td>level 1</td>"), 2u);
  EXPECT_EQ(count(h, "<td>level 2</td>"), 2u);
  EXPECT_EQ(count(h, "<tr class=\"overall\">"), 2u);
  // Each run's card names the eager baseline its speed-ups are against; neither is slow.
  EXPECT_EQ(count(h, "eager baseline: PyTorch 1.13.0a0 eager, OpenBLAS 0.3.21"), 2u);
  EXPECT_EQ(h.find("slow-baseline-"), std::string::npos);
  // Self-contained: no scripts, no external resources.
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("src="), std::string::npos);
  EXPECT_EQ(h.find("http"), std::string::npos);
  EXPECT_EQ(h.find("url("), std::string::npos);
}

TEST(HtmlReport, LabelsTheSimulatedRunEverywhereAndOnlyIt) {
  auto r = render_two();
  const std::string& h = r->html;
  EXPECT_NE(h.find("<title>EvoKernel report — run 1 (SIMULATED)</title>"), std::string::npos);
  EXPECT_NE(h.find("id=\"simulated-1\""), std::string::npos);
  EXPECT_EQ(h.find("id=\"simulated-2\""), std::string::npos);
  // Header chip, summary card, summary table, failures table, memory card, tasks heading.
  EXPECT_EQ(count(h, "<span class=\"sim\""), 6u);
  // Chart legends name it in plain text.
  EXPECT_NE(h.find("run 1 evokernel (sim) SIMULATED"), std::string::npos);
  EXPECT_EQ(h.find("run 2 evokernel (openai:gpt-test) SIMULATED"), std::string::npos);
}

TEST(HtmlReport, EscapesCodeFeedbackAndTitles) {
  auto r = render_two();
  const std::string& h = r->html;
  // relu's best kernel is shown; its hostile first attempt is not (relu was solved)...
  EXPECT_NE(h.find("// relu v4 simd best"), std::string::npos);
  // ...but softmax_big's last attempt and its feedback are, escaped.
  EXPECT_NE(h.find("killed by SIGSEGV"), std::string::npos);
  EXPECT_NE(h.find("Guard the tail loop &lt;n % 8&gt;"), std::string::npos);
  EXPECT_EQ(h.find("<n % 8>"), std::string::npos);
  EXPECT_NE(h.find("<span class=\"tag\" title=\"input shapes scaled down"), std::string::npos);
}

TEST(HtmlReport, EscapesTheCodeOfAnUnsolvedTask) {
  TempDir tmp;
  Workspace ws(tmp.path() / "ws");
  RunStore store(ws);
  RunInfo info;
  info.method = "evokernel";
  info.model = "sim";
  info.simulated = true;
  info.suite = "s";
  info.backend = "cpu";
  info.budget = 1;
  int64_t id = store.create(info);
  {
    Workspace run_ws(store.run_dir(id));
    AttemptLog log(run_ws);
    log.put_task({"relu", 1, 1.0, 0, 0, false, ""});
    Attempt a;
    a.task = "relu";
    a.idx = 1;
    a.stage = Stage::Draft;
    a.code = testing::kHostileCode;
    a.verdict = testing::failed(Category::Compile, false, "error: <bad> & \"worse\"");
    log.insert(a);
  }
  std::string h = render_report({load_run(store, id)});
  EXPECT_NE(h.find("&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(h.find("error: &lt;bad&gt; &amp; &quot;worse&quot;"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("</pre></details><script>"), std::string::npos);
}

// The real thing: Debian's chromium, headless, no network, loads the page.
TEST(HtmlReport, RendersInHeadlessChromiumWithoutConsoleErrors) {
  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium))
    GTEST_SKIP() << "/usr/bin/chromium is absent: install it with scripts/setup to render the "
                    "report in a browser";
  auto r = render_two();
  std::filesystem::path page = r->tmp.path() / "report.html";
  write_file_atomic(page, r->html);
  auto chrome = [&](const std::vector<std::string>& extra) {
    std::filesystem::path profile = r->tmp.path() / ("profile" + std::to_string(extra.size()));
    std::filesystem::create_directories(profile);
    std::vector<std::string> argv = {chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                     "--disable-quic", "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync",
                                     "--user-data-dir=" + profile.string(),
                                     "--enable-logging=stderr", "--v=0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("file://" + page.string());
    ProcessOptions o;
    o.timeout_s = 240;
    o.cwd = r->tmp.path().string();
    o.output_cap = 16 << 20;
    return run_process(argv, o);
  };
  ProcessResult dom = chrome({"--dump-dom"});
  ASSERT_TRUE(dom.ok()) << dom.describe() << "\n" << dom.err;
  EXPECT_EQ(count(dom.out, "<svg class=\"chart"), 9u);
  EXPECT_EQ(count(dom.out, "<table class=\"tasks\">"), 2u);
  EXPECT_NE(dom.out.find("<table class=\"summary\">"), std::string::npos);
  EXPECT_NE(dom.out.find("<details>"), std::string::npos);
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);

  std::filesystem::path png = r->tmp.path() / "report.png";
  ProcessResult shot = chrome({"--screenshot=" + png.string(), "--window-size=1280,2000",
                               "--hide-scrollbars"});
  ASSERT_TRUE(shot.ok()) << shot.describe() << "\n" << shot.err;
  ASSERT_TRUE(std::filesystem::exists(png)) << shot.err;
  std::string bytes = read_file(png);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_GT(bytes.size(), 20000u);  // a blank page compresses to a few kB
  if (const char* keep = std::getenv("EVK_REPORT_SCREENSHOT")) {
    write_file_atomic(keep, bytes);
    write_file_atomic(std::string(keep) + ".html", r->html);
  }

  // The page runs no script, so the console must be silent: no errors, no "Uncaught".
  for (const ProcessResult* p : {&dom, &shot}) {
    std::regex console_error(R"(CONSOLE\(\d+\)|Uncaught|:ERROR:CONSOLE)");
    EXPECT_FALSE(std::regex_search(p->err, console_error)) << p->err;
  }
}

}  // namespace
}  // namespace evk
