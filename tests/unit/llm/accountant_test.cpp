#include "llm/accountant.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace evk;

TEST(PriceTable, ParsesEntriesAndPrefixes) {
  auto t = PriceTable::parse("gpt-5.2=1.75/14; deepseek-chat = 0.28/0.42, gpt-5 = 1/2");
  EXPECT_DOUBLE_EQ(t.find("gpt-5.2")->out_per_mtok, 14);
  EXPECT_DOUBLE_EQ(t.find("deepseek-chat")->in_per_mtok, 0.28);
  EXPECT_DOUBLE_EQ(t.find("gpt-5.2-2025-12-11")->in_per_mtok, 1.75);  // longest prefix
  EXPECT_DOUBLE_EQ(t.find("gpt-5-mini")->in_per_mtok, 1);
  EXPECT_FALSE(t.find("llama").has_value());
  EXPECT_TRUE(PriceTable::parse("").empty());
  EXPECT_THROW(PriceTable::parse("gpt=1"), UsageError);
  EXPECT_THROW(PriceTable::parse("gpt=a/2"), UsageError);
  EXPECT_THROW(PriceTable::parse("=1/2"), UsageError);
}

TEST(Accountant, CostsAndTotalsPerTaskAndRun) {
  Accountant a({}, {}, PriceTable::parse("m=2/10"));
  a.admit("t1");
  double c = a.settle("t1", "m", "m-2025", Usage{1000000, 500000}, 2);
  EXPECT_DOUBLE_EQ(c, 2 + 5);
  a.admit("t2");
  a.cancel("t2", 3);
  a.admit("t2");
  EXPECT_DOUBLE_EQ(a.settle("t2", "unknown", "m", Usage{10, 0, true}, 1), 20.0 / 1e6);
  Totals r = a.run();
  EXPECT_EQ(r.calls, 2);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.tokens(), 1500010);
  EXPECT_EQ(r.estimated_calls, 1);
  EXPECT_EQ(a.task("t1").calls, 1);
  EXPECT_EQ(a.task("t2").failed, 1);
  EXPECT_EQ(a.tasks().size(), 2u);
  EXPECT_NE(Accountant::describe(r).find("2 calls (1 failed, 6 requests)"), std::string::npos);
}

TEST(Accountant, RunCallBudgetRefusesTheNextCallWithAClearMessage) {
  Accountant a(Budget{2, 0, 0});
  a.admit("x");
  a.settle("x", "", "", Usage{1, 1}, 1);
  a.admit("y");
  a.settle("y", "", "", Usage{1, 1}, 1);
  try {
    a.admit("z");
    FAIL() << "admitted past the budget";
  } catch (const BudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("llm.budget_calls"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2 of 2 calls"), std::string::npos) << e.what();
  }
  EXPECT_EQ(a.run().calls, 2);
}

TEST(Accountant, FailedCallsGiveTheirSlotBack) {
  Accountant a(Budget{1, 0, 0});
  a.admit("x");
  EXPECT_THROW(a.admit("x"), BudgetExceeded);  // the in-flight call holds the only slot
  a.cancel("x", 5);
  a.admit("x");
  a.settle("x", "", "", Usage{}, 1);
  EXPECT_THROW(a.admit("x"), BudgetExceeded);
}

TEST(Accountant, TokenAndUsdBudgetsPerTaskAndRun) {
  Accountant a(Budget{0, 0, 0.002}, Budget{0, 100, 0}, PriceTable::parse("m=10/10"));
  a.admit("t");
  a.settle("t", "m", "", Usage{60, 50}, 1);  // 110 tokens >= 100 task cap
  try {
    a.admit("t");
    FAIL();
  } catch (const BudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("task 't'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("llm.budget_task_tokens"), std::string::npos);
  }
  a.admit("u");  // other tasks still run; run USD: (110 + 100) * 10 / 1e6 = 0.0021 >= 0.002
  a.settle("u", "m", "", Usage{50, 50}, 1);
  try {
    a.admit("v");
    FAIL();
  } catch (const BudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("llm.budget_usd"), std::string::npos) << e.what();
  }
}

TEST(Accountant, ExactlyTheBudgetIsAdmittedUnderRace) {
  Accountant a(Budget{10, 0, 0});
  std::atomic<int> admitted{0}, refused{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 32; ++i)
    ts.emplace_back([&, i] {
      try {
        a.admit("t" + std::to_string(i % 4));
        ++admitted;
        a.settle("t" + std::to_string(i % 4), "", "", Usage{1, 1}, 1);
      } catch (const BudgetExceeded&) {
        ++refused;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(admitted.load(), 10);
  EXPECT_EQ(refused.load(), 22);
  EXPECT_EQ(a.run().calls, 10);
}

TEST(Accountant, FromConfigReadsBudgetsAndPrices) {
  Config cfg;
  cfg.set("llm.budget_calls", "3", "test");
  cfg.set("llm.budget_task_usd", "0.5", "test");
  cfg.set("llm.prices", "x=1/1", "test");
  auto a = Accountant::from_config(cfg);
  EXPECT_TRUE(a->prices().find("x").has_value());
  cfg.set("llm.budget_tokens", "-1", "test");
  EXPECT_THROW(Accountant::from_config(cfg), UsageError);
}
