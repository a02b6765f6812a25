// Token and cost accounting for one run, and the budgets that stop new calls.
//
// Every call goes admit() -> (the request) -> settle() or cancel(), exactly once each.
// Invariants:
//   - Calls budget: in-flight calls count against it, so with N callers racing for the last
//     slot exactly one gets it; a call that fails (cancel) gives its slot back.
//   - Token and USD budgets are known only after a reply: a call is admitted while the spent
//     amount is below the cap, so the run may pass a cap by the calls already in flight, never
//     by a call started after the cap was reached.
//   - Totals only ever grow, under one mutex; cost = tokens x the model's price per million.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/config.h"
#include "llm/provider.h"

namespace evk {

struct Budget {
  int64_t calls = 0;   // 0: unlimited
  int64_t tokens = 0;  // prompt + completion; 0: unlimited
  double usd = 0;      // 0: unlimited
};

struct Totals {
  int64_t calls = 0;     // calls that returned a completion
  int64_t failed = 0;    // calls that ended in an error after their retries
  int64_t attempts = 0;  // HTTP requests, retries included
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int64_t estimated_calls = 0;  // calls whose usage was estimated (server sent none)
  double cost_usd = 0;
  int64_t tokens() const { return prompt_tokens + completion_tokens; }
};

struct Price {
  double in_per_mtok = 0, out_per_mtok = 0;  // USD per million prompt / completion tokens
};

// "gpt-5.2=1.75/14, deepseek-chat=0.28/0.42" (commas or semicolons between entries).
class PriceTable {
 public:
  PriceTable() = default;
  static PriceTable parse(const std::string& spec);  // UsageError naming a bad entry
  // Exact name, else the longest listed name that prefixes it ("gpt-5.2" prices
  // "gpt-5.2-2025-12-11").
  std::optional<Price> find(const std::string& model) const;
  bool empty() const { return prices_.empty(); }

 private:
  std::map<std::string, Price> prices_;
};

class Accountant {
 public:
  Accountant(Budget run = {}, Budget per_task = {}, PriceTable prices = {});
  // llm.budget_{calls,tokens,usd}, llm.budget_task_{calls,tokens,usd}, llm.prices.
  static std::shared_ptr<Accountant> from_config(const Config& cfg);

  // Reserves one call for `task` ("" is a task too) or throws BudgetExceeded naming the
  // budget, its config key, and what was spent.
  void admit(const std::string& task);
  // The call returned: adds its usage and returns its cost (priced by `model`, else
  // `reply_model`; 0 when neither has a price).
  double settle(const std::string& task, const std::string& model, const std::string& reply_model,
                const Usage& usage, int attempts);
  // The call failed after `attempts` requests: it counts as failed and frees its slot.
  void cancel(const std::string& task, int attempts);

  double cost(const std::string& model, const std::string& reply_model, const Usage& u) const;
  const PriceTable& prices() const { return prices_; }
  Totals run() const;
  Totals task(const std::string& task) const;
  std::map<std::string, Totals> tasks() const;
  // "12 calls (1 failed, 14 requests), 3400 + 1200 tokens, $0.0123"
  static std::string describe(const Totals& t);

 private:
  void check(const Budget& b, const Totals& t, int64_t in_flight, const std::string& scope,
             const std::string& key_prefix) const;

  const Budget run_budget_, task_budget_;
  const PriceTable prices_;
  mutable std::mutex mu_;
  Totals run_;
  int64_t run_in_flight_ = 0;
  std::map<std::string, Totals> tasks_;
  std::map<std::string, int64_t> task_in_flight_;
};

// The accounting decorator make_provider() puts outermost. `model` is the name after the
// provider prefix ("gpt-5.2"), used to look up the price.
std::unique_ptr<Provider> with_accounting(std::unique_ptr<Provider> inner, std::string model,
                                          std::shared_ptr<Accountant> accountant);

}  // namespace evk
