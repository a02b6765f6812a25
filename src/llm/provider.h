// The LLM as the agent sees it: a Provider turns a chat (messages) into one Completion.
//
// Models are named "provider:model": "openai:gpt-5.2", "openai:deepseek-chat",
// "openai:qwen3-coder" (any OpenAI-compatible endpoint; llm.base_url says where),
// "cmd:/path/to/tool args" (the user's own program per request, llm/cmd.h), "replay:FILE"
// (answers from a recorded cassette) and "sim" (the offline coder).
//
// make_provider() returns a stack of decorators, outermost first:
//   recording (when llm.record is set) -> accounting (budgets, tokens, cost; a shared
//   Accountant) -> the base provider (openai / cmd / replay / sim).
// Invariants relied upon by callers:
//   - complete() is thread-safe; the openai provider limits calls in flight (llm.concurrency)
//     across every caller of the same provider object.
//   - A budget is checked before a call is sent: BudgetExceeded is thrown before any request
//     leaves, never in the middle of one, and a refused call costs nothing.
//   - The API key is never part of a message, a log line, a cassette or an exception text.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/error.h"

namespace evk {

class Accountant;

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct CompletionOptions {
  double temperature = 0.7;
  int max_tokens = 4096;
  uint64_t seed = 0;  // part of the cassette key; sent to the server when nonzero
  // Merged into the request body over llm.extra_body; a null value removes a field.
  nlohmann::json extra = nlohmann::json::object();
  std::string task;  // for per-task accounting; not part of the request
};

struct Usage {
  int64_t prompt_tokens = 0, completion_tokens = 0;
  bool estimated = false;  // the server sent no usage: counted from characters (4 per token)
  int64_t total() const { return prompt_tokens + completion_tokens; }
};

struct Completion {
  std::string text;       // the answer (reasoning stripped out)
  Usage usage;
  double latency_s = 0;   // of the attempt that succeeded
  std::string finish_reason;
  double cost_usd = 0;    // from llm.prices; 0 when the model has no price
  std::string model;      // as the server named it
  std::string reasoning;  // reasoning_content / reasoning / <think> text, when the server sent any
  int attempts = 1;       // HTTP requests it took, retries included
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual Completion complete(const std::vector<Message>& messages,
                              const CompletionOptions& opt) = 0;  // thread-safe
  virtual std::string name() const = 0;  // "openai:gpt-5.2", "replay:FILE", "sim"
  virtual bool simulated() const { return false; }  // true only for the offline sim coder
};

// A call refused because a budget (calls, tokens, USD; per run or per task) is spent.
struct BudgetExceeded : Error {
  using Error::Error;
};

// A call that failed after its retries. kind is one of: "dns", "url", "refused", "tls",
// "timeout", "connection", "http" (see http_status), "malformed" (unparseable reply),
// "empty" (no choices, or a cmd: tool that printed nothing), "cmd" (a cmd: tool that exited
// non-zero), "replay_miss". The message is a full diagnosis meant for the user.
struct ProviderError : Error {
  ProviderError(std::string kind_, const std::string& message, int http_status_ = 0,
                int attempts_ = 1)
      : Error(message), kind(std::move(kind_)), http_status(http_status_), attempts(attempts_) {}
  std::string kind;
  int http_status = 0;
  int attempts = 1;
};

// Parses "openai:MODEL", "cmd:TOOL [ARGS]", "replay:FILE", "sim"; wraps always with accounting against
// `accountant` (shared by every provider given the same one: budgets and totals are per run),
// then with a recorder when llm.record is set.
// UsageError for an unknown prefix, an empty model name, or a missing key for an https endpoint
// (the message names EVK_API_KEY and OPENAI_API_KEY).
std::unique_ptr<Provider> make_provider(const std::string& model, const Config& cfg,
                                        std::shared_ptr<Accountant> accountant);
// Same, with a fresh Accountant built from cfg (budgets llm.budget_*, prices llm.prices).
std::unique_ptr<Provider> make_provider(const std::string& model, const Config& cfg);

// The candidate in a reply: of its fenced blocks, those that define evk_forward (the entry of
// every backend's ABI) before those that do not, then those tagged c/cpp/c++/cuda/cu/opencl/cl
// (and the cxx/cc/h/hpp aliases) before other tags; of the best such, the last (the model's
// final version). Without any block, the whole reply when it defines evk_forward (a bare
// file), else nullopt ("no code block"). An unterminated fence runs to the end of the reply;
// blocks holding only white space are skipped.
std::optional<std::string> extract_code(const std::string& reply);

}  // namespace evk
