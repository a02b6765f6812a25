// The "openai" provider: any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek,
// vLLM, SGLang, Ollama, llama.cpp server), non-streaming, over libcurl.
//
// Request: POST {base_url}/chat/completions with model, messages, temperature, max_tokens,
// seed (when nonzero), then llm.extra_body and CompletionOptions::extra merged over it (a null
// value removes a field; when max_completion_tokens ends up set, max_tokens is dropped, as
// newer OpenAI models reject it).
// Reply: choices[0].message.content (a string, null, or an array of text parts);
// reasoning_content (DeepSeek, older vLLM) or reasoning (Ollama, newer vLLM) or a leading
// <think>...</think> in content go to Completion::reasoning; no usage -> estimated.
// Errors in any of the shapes {"error": {...}}, {"error": "text"}, {"object": "error", ...}.
//
// Retries (llm.retries) with exponential back-off and jitter on timeouts, connection errors,
// 408, 429 and 5xx, honouring Retry-After up to llm.retry_after_max_s; never on other 4xx,
// DNS or TLS failures, or malformed / empty replies. At most llm.concurrency requests of this
// provider are in flight at once; a caller sleeping in back-off holds no permit.
#pragma once
#include <memory>
#include <random>
#include <string>

#include "llm/provider.h"
#include "llm/semaphore.h"

namespace evk {

struct OpenAIOptions {
  std::string model;     // as the server knows it: "gpt-5.2", "deepseek-chat"
  std::string base_url;  // "https://api.openai.com/v1"; trailing slashes ignored
  std::string api_key;   // empty: no Authorization header (local servers)
  nlohmann::json extra_body = nlohmann::json::object();
  double connect_timeout_s = 10, timeout_s = 300;
  int retries = 4;
  double retry_base_s = 1, retry_max_s = 30, retry_after_max_s = 120;
  int concurrency = 4;

  // From the llm.* keys. UsageError when the key is missing for an https endpoint or
  // llm.extra_body is not a JSON object.
  static OpenAIOptions from_config(const Config& cfg, const std::string& model);
};

class OpenAIProvider final : public Provider {
 public:
  explicit OpenAIProvider(OpenAIOptions opt);
  Completion complete(const std::vector<Message>& messages,
                      const CompletionOptions& opt) override;
  std::string name() const override { return "openai:" + opt_.model; }

  // The request body complete() would send (for tests and `llm ping --dry-run`).
  nlohmann::json request_body(const std::vector<Message>& messages,
                              const CompletionOptions& opt) const;
  const OpenAIOptions& options() const { return opt_; }

 private:
  double backoff_s(int retry);
  std::string redact(std::string s) const;

  OpenAIOptions opt_;
  std::string url_;
  mutable Semaphore in_flight_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

// Parses a 2xx chat-completions body; throws ProviderError("malformed" | "empty" | "http").
// `requested_model` names the reply when the server does not; messages feed the estimate of
// prompt tokens when the server sends no usage.
Completion parse_chat_completion(const std::string& body, const std::string& requested_model,
                                 const std::vector<Message>& messages);

// Moves a leading <think>...</think> of c.text (a reasoning model served without a reasoning
// parser, or a local CLI printing its thoughts) into c.reasoning.
void split_think(Completion& c);

// Prompt/completion tokens from characters, about 4 per token, for servers without usage.
Usage estimate_usage(const std::vector<Message>& messages, const std::string& reply);

}  // namespace evk
