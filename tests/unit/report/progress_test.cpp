#include <gtest/gtest.h>

#include <sstream>

#include "fixture.h"
#include "report/progress.h"

namespace evk {
namespace {

// The fields of the agent's AgentEvent, so the printer is used exactly as the agent will.
struct Event {
  std::string task;
  int task_index = 0, task_count = 0;
  const Attempt* attempt = nullptr;
  std::string kind;
  std::string reason;
};

Attempt make(const std::string& task, int idx, const Verdict& v) {
  Attempt a;
  a.task = task;
  a.idx = idx;
  a.stage = idx == 1 ? Stage::Draft : Stage::Refine;
  a.code = "int x;";
  a.verdict = v;
  a.prompt_tokens = 900;
  a.completion_tokens = 100;
  a.cost_usd = 0.01;
  return a;
}

struct Clock {
  double t = 100;
};

TEST(Progress, PlainModePrintsOneLinePerAttemptAndTaskWithoutControlCharacters) {
  std::ostringstream out;
  auto clock = std::make_shared<Clock>();
  ProgressPrinter p({.live = false, .budget = 4, .out = &out, .clock = [clock] { return clock->t; }});
  Attempt a1 = make("relu", 1, testing::failed(Category::Compile, false, "e"));
  Attempt a2 = make("relu", 2, testing::ok(2.0, 4.0, 0.1));
  p(Event{"relu", 1, 2, nullptr, "task_start", ""});
  p(Event{"relu", 1, 2, &a1, "attempt", ""});
  p(Event{"relu", 1, 2, &a2, "attempt", ""});
  p(Event{"relu", 1, 2, nullptr, "task_done", ""});
  p.finish();
  std::string s = out.str();
  EXPECT_EQ(s.find('\r'), std::string::npos);
  EXPECT_EQ(s.find('\x1b'), std::string::npos);
  EXPECT_NE(s.find("[1/2] relu  1/4 draft  compile | solved 0 CR 0%"), std::string::npos) << s;
  EXPECT_NE(s.find("ok 2.00 ms (2.00x eager) | solved 1 CR 50%"), std::string::npos) << s;
  EXPECT_NE(s.find("done [1/2] relu: best 2.00 ms (2.00x eager"), std::string::npos) << s;
}

TEST(Progress, LiveStatusLineShowsAccRatesSpeedUpsCostAndEta) {
  std::ostringstream out;
  auto clock = std::make_shared<Clock>();
  ProgressPrinter p({.live = true, .budget = 4, .out = &out, .clock = [clock] { return clock->t; }});
  ProgressPrinter copy = p;  // copies share state, as a std::function listener needs
  Attempt a1 = make("relu", 1, testing::ok(2.0, 4.0, 0.1));
  Attempt a2 = make("relu", 2, testing::ok(0.5, 4.0, 0.3));
  clock->t += 10;
  p(Event{"relu", 1, 3, &a1, "attempt", ""});
  clock->t += 10;
  copy(Event{"relu", 1, 3, &a2, "attempt", ""});
  // 2 attempts in 20 s; left: relu 2 of 4, two unseen tasks 8: 10 attempts, 100 s.
  std::string line = p.status_line();
  EXPECT_NE(line.find("tasks 0/3 · 2 attempts · solved 1 (Acc 33%) · CR 100%"), std::string::npos)
      << line;
  EXPECT_NE(line.find("best 8.00x eager (relu), 4.00x over 1st draft (relu)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("2000 tokens $0.02"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 1m40s"), std::string::npos) << line;
  p(Event{"relu", 1, 3, nullptr, "task_done", ""});
  // A finished task leaves its budget: 8 attempts left at 10 s each.
  EXPECT_NE(p.status_line().find("ETA 1m20s"), std::string::npos) << p.status_line();
  p.finish();
  std::string s = out.str();
  EXPECT_NE(s.find("\r\x1b[2K"), std::string::npos);
  EXPECT_NE(s.find("done [1/3] relu: best 0.50 ms"), std::string::npos) << s;
  EXPECT_EQ(s.back(), '\n');
}

TEST(Progress, SkippedAndWarnedTasksGetTheirReasonOnALineAndCountAsDone) {
  std::ostringstream out;
  auto clock = std::make_shared<Clock>();
  ProgressPrinter p({.live = false, .budget = 2, .out = &out, .clock = [clock] { return clock->t; }});
  p(Event{"broken", 1, 3, nullptr, "task_skipped", "broken file: syntax error at line 4"});
  p(Event{"relu", 2, 3, nullptr, "task_warning", "degenerate: input copy (...)"});
  Attempt a1 = make("relu", 1, testing::ok(2.0, 4.0, 0.1));
  p(Event{"relu", 2, 3, &a1, "attempt", ""});
  p(Event{"relu", 2, 3, nullptr, "task_done", ""});
  std::string text = out.str();
  EXPECT_NE(text.find("skipped [1/3] broken: broken file: syntax error at line 4\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("warning [2/3] relu: degenerate: input copy"), std::string::npos) << text;
  // Two of three done, one of them skipped; Acc over the tasks that could be attempted.
  EXPECT_NE(p.status_line().find("tasks 2/3 (1 skipped)"), std::string::npos) << p.status_line();
  EXPECT_NE(p.status_line().find("solved 1 (Acc 50%)"), std::string::npos) << p.status_line();
}

TEST(Progress, DurationFormat) {
  EXPECT_EQ(format_duration(45), "45s");
  EXPECT_EQ(format_duration(312), "5m12s");
  EXPECT_EQ(format_duration(7380), "2h03m");
}

}  // namespace
}  // namespace evk
