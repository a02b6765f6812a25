#include "llm/accountant.h"

#include <fmt/format.h>

#include <sstream>

namespace evk {

static std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

static double parse_price(const std::string& s, const std::string& entry) {
  try {
    size_t pos = 0;
    double v = std::stod(s, &pos);
    if (pos == s.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw UsageError("llm.prices entry '" + entry +
                   "' is not MODEL=IN/OUT with USD per million tokens (e.g. gpt-5.2=1.75/14)");
}

PriceTable PriceTable::parse(const std::string& spec) {
  PriceTable t;
  std::string norm = spec;
  for (char& c : norm)
    if (c == ';') c = ',';
  std::stringstream ss(norm);
  std::string entry;
  while (std::getline(ss, entry, ',')) {
    entry = trim(entry);
    if (entry.empty()) continue;
    size_t eq = entry.rfind('=');
    size_t slash = entry.rfind('/');
    if (eq == std::string::npos || slash == std::string::npos || slash < eq)
      parse_price("", entry);  // throws the usage message
    std::string model = trim(entry.substr(0, eq));
    if (model.empty()) parse_price("", entry);
    t.prices_[model] = {parse_price(trim(entry.substr(eq + 1, slash - eq - 1)), entry),
                        parse_price(trim(entry.substr(slash + 1)), entry)};
  }
  return t;
}

std::optional<Price> PriceTable::find(const std::string& model) const {
  if (model.empty()) return std::nullopt;
  if (auto it = prices_.find(model); it != prices_.end()) return it->second;
  std::optional<Price> best;
  size_t best_len = 0;
  for (const auto& [name, price] : prices_)
    if (model.rfind(name, 0) == 0 && name.size() > best_len) best = price, best_len = name.size();
  return best;
}

Accountant::Accountant(Budget run, Budget per_task, PriceTable prices)
    : run_budget_(run), task_budget_(per_task), prices_(std::move(prices)) {}

std::shared_ptr<Accountant> Accountant::from_config(const Config& cfg) {
  Budget run{cfg.integer("llm.budget_calls"), cfg.integer("llm.budget_tokens"),
             cfg.real("llm.budget_usd")};
  Budget task{cfg.integer("llm.budget_task_calls"), cfg.integer("llm.budget_task_tokens"),
              cfg.real("llm.budget_task_usd")};
  for (const Budget* b : {&run, &task})
    if (b->calls < 0 || b->tokens < 0 || b->usd < 0)
      throw UsageError("llm.budget_* values must be >= 0 (0 means unlimited)");
  return std::make_shared<Accountant>(run, task, PriceTable::parse(cfg.str("llm.prices")));
}

void Accountant::check(const Budget& b, const Totals& t, int64_t in_flight,
                       const std::string& scope, const std::string& key_prefix) const {
  if (b.calls > 0 && t.calls + in_flight >= b.calls)
    throw BudgetExceeded(fmt::format(
        "LLM budget reached: {} has used {} of {} calls ({}calls = {}{}); no new call was sent",
        scope, t.calls + in_flight, b.calls, key_prefix, b.calls,
        in_flight ? fmt::format(", {} still in flight", in_flight) : ""));
  if (b.tokens > 0 && t.tokens() >= b.tokens)
    throw BudgetExceeded(fmt::format(
        "LLM budget reached: {} has used {} tokens, cap {} ({}tokens); no new call was sent",
        scope, t.tokens(), b.tokens, key_prefix));
  if (b.usd > 0 && t.cost_usd >= b.usd)
    throw BudgetExceeded(fmt::format(
        "LLM budget reached: {} has spent ${:.4f}, cap ${:.4f} ({}usd); no new call was sent",
        scope, t.cost_usd, b.usd, key_prefix));
}

void Accountant::admit(const std::string& task) {
  std::lock_guard lock(mu_);
  check(run_budget_, run_, run_in_flight_, "the run", "llm.budget_");
  auto it = tasks_.find(task);
  Totals none;
  check(task_budget_, it == tasks_.end() ? none : it->second, task_in_flight_[task],
        "task '" + task + "'", "llm.budget_task_");
  ++run_in_flight_;
  ++task_in_flight_[task];
}

double Accountant::cost(const std::string& model, const std::string& reply_model,
                        const Usage& u) const {
  auto p = prices_.find(model);
  if (!p) p = prices_.find(reply_model);
  if (!p) return 0;
  return (static_cast<double>(u.prompt_tokens) * p->in_per_mtok +
          static_cast<double>(u.completion_tokens) * p->out_per_mtok) /
         1e6;
}

double Accountant::settle(const std::string& task, const std::string& model,
                          const std::string& reply_model, const Usage& usage, int attempts) {
  double c = cost(model, reply_model, usage);
  std::lock_guard lock(mu_);
  for (Totals* t : {&run_, &tasks_[task]}) {
    t->calls += 1;
    t->attempts += attempts;
    t->prompt_tokens += usage.prompt_tokens;
    t->completion_tokens += usage.completion_tokens;
    t->estimated_calls += usage.estimated ? 1 : 0;
    t->cost_usd += c;
  }
  --run_in_flight_;
  --task_in_flight_[task];
  return c;
}

void Accountant::cancel(const std::string& task, int attempts) {
  std::lock_guard lock(mu_);
  for (Totals* t : {&run_, &tasks_[task]}) {
    t->failed += 1;
    t->attempts += attempts;
  }
  --run_in_flight_;
  --task_in_flight_[task];
}

Totals Accountant::run() const {
  std::lock_guard lock(mu_);
  return run_;
}

Totals Accountant::task(const std::string& task) const {
  std::lock_guard lock(mu_);
  auto it = tasks_.find(task);
  return it == tasks_.end() ? Totals{} : it->second;
}

std::map<std::string, Totals> Accountant::tasks() const {
  std::lock_guard lock(mu_);
  return tasks_;
}

std::string Accountant::describe(const Totals& t) {
  return fmt::format("{} calls ({} failed, {} requests), {} + {} tokens{}, ${:.4f}", t.calls,
                     t.failed, t.attempts, t.prompt_tokens, t.completion_tokens,
                     t.estimated_calls ? fmt::format(" ({} estimated)", t.estimated_calls) : "",
                     t.cost_usd);
}

namespace {

class AccountedProvider final : public Provider {
 public:
  AccountedProvider(std::unique_ptr<Provider> inner, std::string model,
                    std::shared_ptr<Accountant> acct)
      : inner_(std::move(inner)), model_(std::move(model)), acct_(std::move(acct)) {}

  Completion complete(const std::vector<Message>& messages,
                      const CompletionOptions& opt) override {
    acct_->admit(opt.task);
    Completion c;
    try {
      c = inner_->complete(messages, opt);
    } catch (const ProviderError& e) {
      acct_->cancel(opt.task, e.attempts);
      throw;
    } catch (...) {
      acct_->cancel(opt.task, 0);
      throw;
    }
    c.cost_usd = acct_->settle(opt.task, model_, c.model, c.usage, c.attempts);
    return c;
  }
  std::string name() const override { return inner_->name(); }
  bool simulated() const override { return inner_->simulated(); }

 private:
  std::unique_ptr<Provider> inner_;
  const std::string model_;
  std::shared_ptr<Accountant> acct_;
};

}  // namespace

std::unique_ptr<Provider> with_accounting(std::unique_ptr<Provider> inner, std::string model,
                                          std::shared_ptr<Accountant> accountant) {
  return std::make_unique<AccountedProvider>(std::move(inner), std::move(model),
                                             std::move(accountant));
}

}  // namespace evk
