// Reply and request shapes of the servers the openai provider talks to, as documented by
// OpenAI, DeepSeek, vLLM, Ollama and the llama.cpp server.
#include <gtest/gtest.h>

#include "llm/openai.h"

using namespace evk;
using json = nlohmann::json;

static const std::vector<Message> kMsgs = {{"system", "be brief"}, {"user", "write a kernel"}};

TEST(ReplyShapes, OpenAIChatCompletion) {
  std::string body = R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5.2-2025-12-11",
    "choices":[{"index":0,"message":{"role":"assistant","content":"hi","refusal":null},"logprobs":null,
    "finish_reason":"stop"}],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,
    "completion_tokens_details":{"reasoning_tokens":0}},"system_fingerprint":"fp"})";
  Completion c = parse_chat_completion(body, "gpt-5.2", kMsgs);
  EXPECT_EQ(c.text, "hi");
  EXPECT_EQ(c.model, "gpt-5.2-2025-12-11");
  EXPECT_EQ(c.finish_reason, "stop");
  EXPECT_EQ(c.usage.prompt_tokens, 19);
  EXPECT_EQ(c.usage.completion_tokens, 10);
  EXPECT_FALSE(c.usage.estimated);
}

TEST(ReplyShapes, DeepSeekReasoningContentIsKeptApart) {
  std::string body = R"({"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant",
    "content":"```cpp\nint k;\n```","reasoning_content":"think think"},"finish_reason":"stop"}],
    "usage":{"prompt_tokens":5,"completion_tokens":7,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":5}})";
  Completion c = parse_chat_completion(body, "deepseek-reasoner", kMsgs);
  EXPECT_EQ(c.reasoning, "think think");
  EXPECT_EQ(c.text, "```cpp\nint k;\n```");
}

TEST(ReplyShapes, OllamaAndNewVllmReasoningField) {
  std::string body = R"({"model":"qwen3:8b","choices":[{"index":0,"message":{"role":"assistant",
    "content":"","reasoning":"all tokens went here"},"finish_reason":"length"}],
    "usage":{"prompt_tokens":3,"completion_tokens":16}})";
  Completion c = parse_chat_completion(body, "qwen3:8b", kMsgs);
  EXPECT_EQ(c.text, "");
  EXPECT_EQ(c.reasoning, "all tokens went here");
  EXPECT_EQ(c.finish_reason, "length");
}

TEST(ReplyShapes, ThinkTagsInContentWithoutAReasoningParser) {
  std::string body = R"({"choices":[{"message":{"content":"<think>\n```cpp\nwrong\n```\n</think>\n\n```cpp\nright\n```"},
    "finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}})";
  Completion c = parse_chat_completion(body, "m", kMsgs);
  EXPECT_EQ(c.text, "```cpp\nright\n```");
  EXPECT_NE(c.reasoning.find("wrong"), std::string::npos);
  EXPECT_EQ(extract_code(c.text).value(), "right\n");
  EXPECT_EQ(c.model, "m");  // no "model" in the reply: the requested name
}

TEST(ReplyShapes, NullContentAndContentParts) {
  Completion a = parse_chat_completion(
      R"({"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}})",
      "m", kMsgs);
  EXPECT_EQ(a.text, "");
  Completion b = parse_chat_completion(
      R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1}})",
      "m", kMsgs);
  EXPECT_EQ(b.text, "ab");
}

TEST(ReplyShapes, MissingUsageIsEstimatedAndMarked) {
  Completion c = parse_chat_completion(
      R"({"choices":[{"message":{"content":"12345678"},"finish_reason":"stop"}]})", "m", kMsgs);
  EXPECT_TRUE(c.usage.estimated);
  EXPECT_EQ(c.usage.completion_tokens, 2);  // 8 characters, 4 per token
  EXPECT_GT(c.usage.prompt_tokens, 0);
}

TEST(ReplyShapes, ErrorBodiesInEveryShapeAreErrors) {
  // OpenAI / llama.cpp ({"error": {...}}, code string or int), vLLM (object: error), Ollama-native.
  for (std::string body : {R"({"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}})",
                           R"({"error":{"code":401,"message":"bad key","type":"authentication_error"}})",
                           R"({"object":"error","message":"bad key","type":"NotFoundError","param":null,"code":404})",
                           R"({"error":"bad key"})"}) {
    try {
      parse_chat_completion(body, "m", kMsgs);
      FAIL() << body;
    } catch (const ProviderError& e) {
      EXPECT_EQ(e.kind, "http");
      EXPECT_NE(std::string(e.what()).find("bad key"), std::string::npos);
    }
  }
}

TEST(ReplyShapes, MalformedAndEmpty) {
  try {
    parse_chat_completion("<html>502 Bad Gateway</html>", "m", kMsgs);
    FAIL();
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind, "malformed");
    EXPECT_NE(std::string(e.what()).find("502 Bad Gateway"), std::string::npos);
  }
  try {
    parse_chat_completion(R"({"choices":[]})", "m", kMsgs);
    FAIL();
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind, "empty");
  }
}

static OpenAIProvider provider_with(json extra_body) {
  OpenAIOptions o;
  o.model = "m";
  o.base_url = "http://127.0.0.1:9/v1";
  o.extra_body = std::move(extra_body);
  return OpenAIProvider(o);
}

TEST(RequestShape, StandardFieldsSeedAndExtras) {
  auto p = provider_with(json{{"reasoning_effort", "high"}, {"top_k", 20}});
  CompletionOptions opt;
  opt.temperature = 0.2;
  opt.max_tokens = 100;
  opt.seed = (1ULL << 40) + 7;
  opt.extra = {{"top_k", 5}, {"chat_template_kwargs", {{"enable_thinking", false}}}};
  json b = p.request_body(kMsgs, opt);
  EXPECT_EQ(b["model"], "m");
  EXPECT_EQ(b["messages"][1]["content"], "write a kernel");
  EXPECT_EQ(b["temperature"], 0.2);
  EXPECT_EQ(b["max_tokens"], 100);
  EXPECT_EQ(b["stream"], false);
  EXPECT_EQ(b["seed"], 7u);  // 32-bit servers: seed mod 2^31
  EXPECT_EQ(b["reasoning_effort"], "high");
  EXPECT_EQ(b["top_k"], 5);  // per-call extra wins over llm.extra_body
  EXPECT_EQ(b["chat_template_kwargs"]["enable_thinking"], false);
}

TEST(RequestShape, MaxCompletionTokensReplacesMaxTokensAndNullRemoves) {
  auto p = provider_with(json{{"max_completion_tokens", 8000}, {"temperature", nullptr}});
  json b = p.request_body(kMsgs, CompletionOptions{});
  EXPECT_FALSE(b.contains("max_tokens"));
  EXPECT_FALSE(b.contains("temperature"));
  EXPECT_FALSE(b.contains("seed"));  // seed 0 is not sent
  EXPECT_EQ(b["max_completion_tokens"], 8000);
}
