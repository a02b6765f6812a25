// A fake OpenAI-compatible server for tests and demos: real HTTP on 127.0.0.1 (cpp-httplib),
// the chat-completions protocol (POST /v1/chat/completions, GET /v1/models), and a
// programmable behaviour per request, so the client's retries, diagnoses and accounting can be
// tested against a real socket.
//
// Requests take the next scripted Behavior in arrival order; once the script is used up they
// take the default one. Usage in a reply is exact and reproducible:
//   prompt_tokens = (sum of message content lengths) / 4 + 1, completion_tokens = text length / 4 + 1,
// and usage_served() sums it over replies sent whole, so a test can check the client's
// accounting against what the server really returned.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace evk::fake {

struct Behavior {
  // "ok"         a normal reply (text, or a code block derived from the request)
  // "status"     HTTP `status` with an OpenAI-style error body (+ Retry-After when set)
  // "malformed"  200 with a body that is not JSON
  // "truncated"  200 whose body stops halfway (Content-Length promises more; FIN)
  // "reset"      the connection is reset (RST) before any byte of the response
  // "empty"      200 with "choices": []
  // "no_usage"   a normal reply without the usage object (llama.cpp-style servers of old)
  // "reasoning"  a normal reply plus message.reasoning_content (DeepSeek-style)
  // "length"     stopped at max_tokens: finish_reason "length", `text` as given (empty: no
  //              content at all, the tokens spent in reasoning_content)
  std::string kind = "ok";
  double delay_s = 0;  // wait before answering (past the client's timeout: a timeout)
  int status = 200;
  std::string retry_after;  // Retry-After header value, for "status"
  std::string text;         // reply text for ok-like kinds; empty: derived from the request
};

// "ok", "delay:1.5" (ok after 1.5 s), "429", "429:2" (Retry-After: 2), "500", "malformed",
// "truncated", "reset", "empty", "no_usage", "reasoning", "length". Throws std::invalid_argument.
Behavior parse_behavior(const std::string& spec);

struct ServerOptions {
  std::string api_key;                    // non-empty: require "Authorization: Bearer KEY"
  std::vector<std::string> models = {"fake"};  // others get 404 model_not_found; empty: any
  int port = 0;                           // 0: any free port
  int threads = 64;                       // more than any client concurrency under test
};

class FakeOpenAI {
 public:
  explicit FakeOpenAI(ServerOptions opt = {});
  ~FakeOpenAI();  // stops the server and wakes delayed handlers
  FakeOpenAI(const FakeOpenAI&) = delete;
  FakeOpenAI& operator=(const FakeOpenAI&) = delete;

  int port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:PORT/v1"

  void script(std::vector<Behavior> behaviors);
  void set_default(Behavior b);

  int requests() const { return requests_.load(); }
  int max_in_flight() const { return max_in_flight_.load(); }
  int64_t prompt_tokens_served() const;
  int64_t completion_tokens_served() const;
  std::vector<nlohmann::json> bodies() const;        // request bodies, arrival order
  std::vector<std::string> authorizations() const;   // Authorization headers received

  // Blocks until stop() from another thread (the fake-openai binary).
  void wait();
  void stop();

 private:
  void handle_chat(const httplib::Request& req, httplib::Response& res);
  Behavior next_behavior();
  bool sleep_unless_stopped(double s);

  ServerOptions opt_;
  std::unique_ptr<httplib::Server> svr_;
  std::thread thread_;
  int port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::deque<Behavior> script_;
  Behavior default_;
  std::vector<nlohmann::json> bodies_;
  std::vector<std::string> auths_;
  int64_t prompt_served_ = 0, completion_served_ = 0;

  std::atomic<int> requests_{0}, in_flight_{0}, max_in_flight_{0};
};

}  // namespace evk::fake
