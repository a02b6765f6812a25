#include "llm/openai.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <thread>

#include "llm/http.h"

namespace evk {
using json = nlohmann::json;

OpenAIOptions OpenAIOptions::from_config(const Config& cfg, const std::string& model) {
  OpenAIOptions o;
  o.model = model;
  if (o.model.empty())
    throw UsageError("model 'openai:' names no model: use openai:MODEL, e.g. openai:gpt-5.2");
  o.base_url = cfg.str("llm.base_url");
  while (!o.base_url.empty() && o.base_url.back() == '/') o.base_url.pop_back();
  if (o.base_url.rfind("http://", 0) != 0 && o.base_url.rfind("https://", 0) != 0)
    throw UsageError("llm.base_url '" + o.base_url +
                     "' is not an http:// or https:// URL (e.g. https://api.openai.com/v1)");
  o.api_key = cfg.str("llm.api_key");
  if (o.api_key.empty() && o.base_url.rfind("https://", 0) == 0)
    throw UsageError("no API key for " + o.base_url +
                     ": set EVK_API_KEY (or OPENAI_API_KEY, or llm.api_key in evokernel.toml); "
                     "local servers over http:// need none");
  if (std::string eb = cfg.str("llm.extra_body"); !eb.empty()) {
    try {
      o.extra_body = json::parse(eb);
    } catch (const json::exception& e) {
      throw UsageError("llm.extra_body is not valid JSON (" + std::string(e.what()) +
                       "): write a JSON object such as {\"reasoning_effort\": \"high\"}");
    }
    if (!o.extra_body.is_object())
      throw UsageError("llm.extra_body must be a JSON object, e.g. {\"top_k\": 20}");
  }
  o.connect_timeout_s = cfg.real("llm.connect_timeout_s");
  o.timeout_s = cfg.real("llm.timeout_s");
  o.retries = static_cast<int>(cfg.integer("llm.retries"));
  o.retry_base_s = cfg.real("llm.retry_base_s");
  o.retry_max_s = cfg.real("llm.retry_max_s");
  o.retry_after_max_s = cfg.real("llm.retry_after_max_s");
  o.concurrency = static_cast<int>(cfg.integer("llm.concurrency"));
  if (o.connect_timeout_s <= 0 || o.timeout_s <= 0)
    throw UsageError("llm.connect_timeout_s and llm.timeout_s must be > 0 seconds");
  if (o.retries < 0 || o.retry_base_s < 0 || o.retry_max_s < 0 || o.retry_after_max_s < 0)
    throw UsageError("llm.retries and llm.retry_*_s must be >= 0");
  if (o.concurrency < 1) throw UsageError("llm.concurrency must be >= 1");
  return o;
}

OpenAIProvider::OpenAIProvider(OpenAIOptions opt)
    : opt_(std::move(opt)),
      url_(opt_.base_url + "/chat/completions"),
      in_flight_(opt_.concurrency),
      rng_(std::random_device{}()) {}

static void merge_into(json& body, const json& extra) {
  if (!extra.is_object()) return;
  for (const auto& [k, v] : extra.items()) {
    if (v.is_null())
      body.erase(k);
    else
      body[k] = v;
  }
}

json OpenAIProvider::request_body(const std::vector<Message>& messages,
                                  const CompletionOptions& o) const {
  json msgs = json::array();
  for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
  json b = {{"model", opt_.model},       {"messages", msgs},
            {"temperature", o.temperature}, {"max_tokens", o.max_tokens},
            {"stream", false}};
  // Servers take 32-bit seeds; the full seed stays in the cassette key.
  if (o.seed) b["seed"] = o.seed % (1ULL << 31);
  merge_into(b, opt_.extra_body);
  merge_into(b, o.extra);
  bool explicit_max_tokens = (opt_.extra_body.is_object() && opt_.extra_body.contains("max_tokens")) ||
                             (o.extra.is_object() && o.extra.contains("max_tokens"));
  if (b.contains("max_completion_tokens") && !explicit_max_tokens) b.erase("max_tokens");
  return b;
}

// ---- replies -------------------------------------------------------------------------------

Usage estimate_usage(const std::vector<Message>& messages, const std::string& reply) {
  int64_t prompt_chars = 0;
  for (const auto& m : messages) prompt_chars += static_cast<int64_t>(m.content.size()) + 12;
  Usage u;
  u.prompt_tokens = (prompt_chars + 3) / 4;
  u.completion_tokens = (static_cast<int64_t>(reply.size()) + 3) / 4;
  u.estimated = true;
  return u;
}

static std::string snippet(const std::string& s, size_t n = 200) {
  std::string out = s.substr(0, n);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return s.size() > n ? out + "..." : out;
}

// The error text in any of the shapes servers use; nullopt when the JSON is no error.
static std::optional<std::string> error_text(const json& j, int* code = nullptr) {
  if (!j.is_object()) return std::nullopt;
  auto take_code = [&](const json& c) {
    if (code && c.is_number_integer()) *code = c.get<int>();
  };
  if (j.contains("error")) {
    const json& e = j["error"];
    if (e.is_string()) return e.get<std::string>();
    if (e.is_object()) {
      if (e.contains("code")) take_code(e["code"]);
      if (e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
      return e.dump();
    }
  }
  if (j.value("object", "") == "error") {
    if (j.contains("code")) take_code(j["code"]);
    return j.value("message", j.dump());
  }
  return std::nullopt;
}

static std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
          part["text"].is_string())
        out += part["text"].get<std::string>();
  return out;  // null content (e.g. all tokens spent reasoning) is an empty answer
}

void split_think(Completion& c) {
  size_t b = c.text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos || c.text.compare(b, 7, "<think>") != 0) return;
  size_t end = c.text.find("</think>", b + 7);
  std::string inner = c.text.substr(b + 7, end == std::string::npos ? std::string::npos : end - b - 7);
  c.reasoning = c.reasoning.empty() ? inner : c.reasoning + "\n" + inner;
  c.text = end == std::string::npos ? "" : c.text.substr(end + 8);
  size_t s = c.text.find_first_not_of("\r\n");
  c.text = s == std::string::npos ? "" : c.text.substr(s);
}

Completion parse_chat_completion(const std::string& body, const std::string& requested_model,
                                 const std::vector<Message>& messages) {
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {
    throw ProviderError("malformed", fmt::format("the reply is not JSON ({}); it began: {}",
                                                 e.what(), snippet(body)));
  }
  int code = 0;
  if (auto err = error_text(j, &code))
    throw ProviderError("http", fmt::format("the server answered with an error: {}", *err), code);
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array())
    throw ProviderError("malformed", "the reply has no 'choices' list; it began: " + snippet(body));
  if (j["choices"].empty())
    throw ProviderError("empty", "the reply's 'choices' list is empty (no answer was generated)");
  const json& ch = j["choices"][0];
  if (!ch.is_object() || !ch.contains("message") || !ch["message"].is_object())
    throw ProviderError("malformed", "choices[0] has no 'message' object; it began: " + snippet(body));
  const json& msg = ch["message"];
  Completion c;
  c.text = msg.contains("content") ? content_text(msg["content"]) : "";
  for (const char* k : {"reasoning_content", "reasoning"})
    if (msg.contains(k) && msg[k].is_string() && c.reasoning.empty()) c.reasoning = msg[k].get<std::string>();
  split_think(c);
  if (ch.contains("finish_reason") && ch["finish_reason"].is_string())
    c.finish_reason = ch["finish_reason"].get<std::string>();
  c.model = j.contains("model") && j["model"].is_string() ? j["model"].get<std::string>()
                                                          : requested_model;
  const json* u = j.contains("usage") && j["usage"].is_object() ? &j["usage"] : nullptr;
  if (u && u->contains("prompt_tokens") && (*u)["prompt_tokens"].is_number_integer() &&
      u->contains("completion_tokens") && (*u)["completion_tokens"].is_number_integer()) {
    c.usage.prompt_tokens = (*u)["prompt_tokens"].get<int64_t>();
    c.usage.completion_tokens = (*u)["completion_tokens"].get<int64_t>();
  } else {
    c.usage = estimate_usage(messages, c.reasoning + c.text);
  }
  return c;
}

// ---- failures and retries ------------------------------------------------------------------

namespace {

struct Failure {
  std::string kind;
  bool retryable = false;
  int status = 0;
  std::string message;
  std::optional<double> retry_after;
};

bool contains_ci(std::string hay, std::string needle) {
  std::transform(hay.begin(), hay.end(), hay.begin(), ::tolower);
  std::transform(needle.begin(), needle.end(), needle.begin(), ::tolower);
  return hay.find(needle) != std::string::npos;
}

Failure transport_failure(const TransportError& e, const OpenAIOptions& o, const std::string& url) {
  Failure f;
  switch (e.curl_code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      f.kind = "dns";
      f.message = fmt::format("cannot resolve the host of {} ({}): check llm.base_url or --base-url",
                              url, e.what());
      return f;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      f.kind = "url";
      f.message = fmt::format("bad URL {} ({}): check llm.base_url", url, e.what());
      return f;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      f.kind = "tls";
      f.message = fmt::format(
          "TLS failure talking to {} ({}): check http:// vs https:// in llm.base_url and the "
          "server's certificate",
          url, e.what());
      return f;
    case CURLE_OPERATION_TIMEDOUT:
      f.kind = "timeout";
      f.retryable = true;
      f.message = fmt::format(
          "timed out talking to {} ({}); limits: llm.connect_timeout_s = {}, llm.timeout_s = {}",
          url, e.what(), o.connect_timeout_s, o.timeout_s);
      return f;
    case CURLE_COULDNT_CONNECT:
      f.kind = e.os_errno == ECONNREFUSED ? "refused" : "connection";
      f.retryable = true;
      f.message = fmt::format("cannot connect to {} ({}): is the server running on that host and port?",
                              url, e.what());
      return f;
    default:
      f.kind = "connection";
      f.retryable = true;
      f.message = fmt::format("the connection to {} failed mid-request ({})", url, e.what());
      return f;
  }
}

Failure http_failure(const HttpResponse& r, const OpenAIOptions& o, const std::string& url) {
  Failure f;
  f.kind = "http";
  f.status = static_cast<int>(r.status);
  std::string detail;
  try {
    if (auto t = error_text(json::parse(r.body))) detail = *t;
  } catch (const json::exception&) {
  }
  if (detail.empty()) detail = r.body.empty() ? "(empty body)" : snippet(r.body);
  if (auto it = r.headers.find("retry-after"); it != r.headers.end())
    f.retry_after = parse_retry_after(it->second);
  f.retryable = r.status == 408 || r.status == 429 || r.status >= 500;
  std::string hint;
  if (r.status == 401 || r.status == 403)
    hint = "the API key was rejected: check EVK_API_KEY, OPENAI_API_KEY or llm.api_key";
  else if (r.status == 404 && contains_ci(detail, "model"))
    hint = fmt::format("model '{}' is not served there: check the name after 'openai:' "
                       "(GET {}/models lists what the server has)",
                       o.model, o.base_url);
  else if (r.status == 404)
    hint = "no chat-completions endpoint at that URL: check llm.base_url (most servers want it "
           "to end in /v1)";
  else if (r.status == 429)
    hint = "rate limited or out of quota";
  else if (r.status == 400 && contains_ci(detail, "max_completion_tokens"))
    hint = "this model wants max_completion_tokens: set llm.extra_body = "
           "'{\"max_completion_tokens\": 4096}'";
  f.message = fmt::format("HTTP {} from {}: {}{}", r.status, url, detail,
                          hint.empty() ? "" : " (" + hint + ")");
  return f;
}

}  // namespace

double OpenAIProvider::backoff_s(int retry) {
  double d = std::min(opt_.retry_max_s, opt_.retry_base_s * std::pow(2.0, retry - 1));
  std::lock_guard lock(rng_mu_);
  // Half fixed, half random: spreads callers that failed together without ever waiting ~0.
  return d * std::uniform_real_distribution<double>(0.5, 1.0)(rng_);
}

std::string OpenAIProvider::redact(std::string s) const {
  const std::string& k = opt_.api_key;
  if (k.size() < 4) return s;
  for (size_t p = s.find(k); p != std::string::npos; p = s.find(k, p + 3)) s.replace(p, k.size(), "***");
  return s;
}

Completion OpenAIProvider::complete(const std::vector<Message>& messages,
                                    const CompletionOptions& opt) {
  HttpRequest req;
  req.url = url_;
  req.body = request_body(messages, opt).dump();
  req.headers = {"Content-Type: application/json", "Accept: application/json"};
  if (!opt_.api_key.empty()) req.headers.push_back("Authorization: Bearer " + opt_.api_key);
  req.connect_timeout_s = opt_.connect_timeout_s;
  req.timeout_s = opt_.timeout_s;

  const int max_attempts = opt_.retries + 1;
  for (int a = 1;; ++a) {
    Failure f;
    try {
      HttpResponse r;
      {
        Semaphore::Permit permit(in_flight_);
        r = http_post(req);
      }
      if (r.status >= 200 && r.status < 300) {
        try {
          Completion c = parse_chat_completion(r.body, opt_.model, messages);
          c.latency_s = r.total_s;
          c.attempts = a;
          return c;
        } catch (const ProviderError& e) {
          throw ProviderError(e.kind, redact(fmt::format("{}: {}", url_, e.what())), e.http_status, a);
        }
      }
      f = http_failure(r, opt_, url_);
    } catch (const TransportError& e) {
      f = transport_failure(e, opt_, url_);
    }
    if (!f.retryable || a >= max_attempts) {
      std::string gave_up = a > 1 ? fmt::format(" (gave up after {} attempts)", a) : "";
      throw ProviderError(f.kind, redact(f.message + gave_up), f.status, a);
    }
    double wait = backoff_s(a);
    if (f.retry_after) {
      if (*f.retry_after > opt_.retry_after_max_s)
        throw ProviderError(
            f.kind,
            redact(fmt::format("{}; the server asks to retry after {} s, more than "
                               "llm.retry_after_max_s = {}",
                               f.message, *f.retry_after, opt_.retry_after_max_s)),
            f.status, a);
      wait = *f.retry_after;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
}

}  // namespace evk
