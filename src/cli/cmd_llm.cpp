// evokernel llm ping: one tiny request through the configured provider stack, to check an
// endpoint, a key and a model name before a long run.
#include <fmt/format.h>

#include <iostream>

#include "cli/context.h"
#include "llm/accountant.h"
#include "llm/provider.h"

namespace evk::cli {

namespace {

struct PingArgs {
  std::string model, base_url, record;
  double timeout_s = 30;
  int retries = 0;
};

void run_ping(Context& ctx, const PingArgs& a) {
  Config& cfg = ctx.config();
  if (!a.base_url.empty()) cfg.set("llm.base_url", a.base_url, "flag");
  if (!a.record.empty()) cfg.set("llm.record", a.record, "flag");
  cfg.set("llm.timeout_s", fmt::format("{}", a.timeout_s), "flag");
  cfg.set("llm.retries", std::to_string(a.retries), "flag");
  std::string model = a.model.empty() ? cfg.str("llm.model") : a.model;

  const auto& key = cfg.at("llm.api_key");
  std::string where = model.rfind("openai:", 0) == 0 ? " at " + cfg.str("llm.base_url") : "";
  std::cout << fmt::format("ping {}{} (API key: {})\n", model, where,
                           key.value.empty() ? "none" : "set, from " + key.source);
  auto accountant = Accountant::from_config(cfg);
  auto provider = make_provider(model, cfg, accountant);
  CompletionOptions opt;
  opt.temperature = 0;
  opt.max_tokens = 16;
  opt.task = "ping";
  Completion c;
  try {
    c = provider->complete({{"user", "Reply with the single word: pong"}}, opt);
  } catch (const ProviderError& e) {
    throw Error(fmt::format("ping failed ({}): {}", e.kind, e.what()));
  }
  std::string reply = c.text.size() > 80 ? c.text.substr(0, 80) + "..." : c.text;
  for (char& ch : reply)
    if (ch == '\n') ch = ' ';
  std::cout << fmt::format("ok: latency {:.3f} s, {} request{}\n", c.latency_s, c.attempts,
                           c.attempts == 1 ? "" : "s");
  std::cout << fmt::format("model: {}\n", c.model.empty() ? "(not named by the server)" : c.model);
  std::cout << fmt::format("usage: {} prompt + {} completion tokens{}, ${:.6f}\n",
                           c.usage.prompt_tokens, c.usage.completion_tokens,
                           c.usage.estimated ? " (estimated: the server sent no usage)" : "",
                           c.cost_usd);
  std::cout << fmt::format("finish: {}\nreply: \"{}\"\n", c.finish_reason.empty() ? "?" : c.finish_reason,
                           reply);
  if (!c.reasoning.empty())
    std::cout << fmt::format("reasoning: {} characters\n", c.reasoning.size());
}

}  // namespace

void add_llm_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("llm", "Check and use the LLM provider");
  cmd->require_subcommand(1);
  auto args = std::make_shared<PingArgs>();
  auto* ping = cmd->add_subcommand(
      "ping",
      "Send one tiny request through the configured provider and print latency, model and "
      "usage, or a diagnosis (DNS failure, connection refused, TLS, 401 key rejected, 404 "
      "model or URL, timeout). The API key comes from EVK_API_KEY, else OPENAI_API_KEY, else "
      "llm.api_key, and is never printed.");
  ping->add_option("--model", args->model,
                   "openai:MODEL, \"cmd:TOOL ARGS\" (your program: messages as JSON on stdin, "
                   "the reply on stdout), replay:FILE or sim (default: llm.model)");
  ping->add_option("--base-url", args->base_url,
                   "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: "
                   "llm.base_url)");
  ping->add_option("--timeout", args->timeout_s, "total time limit of the request, seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  ping->add_option("--retries", args->retries, "retries on timeouts, 429 and 5xx")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  ping->add_option("--record", args->record, "append the exchange to this JSON Lines cassette");
  ping->callback([&ctx, args] { run_ping(ctx, *args); });
}

}  // namespace evk::cli
