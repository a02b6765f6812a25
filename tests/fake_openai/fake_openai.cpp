#include "fake_openai.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace evk::fake {
using json = nlohmann::json;

Behavior parse_behavior(const std::string& spec) {
  Behavior b;
  std::string head = spec, arg;
  if (size_t c = spec.find(':'); c != std::string::npos) head = spec.substr(0, c), arg = spec.substr(c + 1);
  if (head == "delay") {
    b.delay_s = std::stod(arg);
  } else if (!head.empty() && std::isdigit(static_cast<unsigned char>(head[0]))) {
    b.kind = "status";
    b.status = std::stoi(head);
    b.retry_after = arg;
  } else if (head == "ok" || head == "malformed" || head == "truncated" || head == "reset" ||
             head == "empty" || head == "no_usage" || head == "reasoning" || head == "length") {
    b.kind = head;
    if (!arg.empty()) b.delay_s = std::stod(arg);
  } else {
    throw std::invalid_argument("unknown behaviour '" + spec +
                                "' (ok, delay:S, STATUS[:RETRY_AFTER], malformed, truncated, "
                                "reset, empty, no_usage, reasoning, length)");
  }
  return b;
}

namespace {

// The accepted socket that carries `req`: cpp-httplib does not hand it to handlers, so find
// the descriptor whose local port is ours and whose peer port is the request's.
int find_socket(int server_port, int remote_port) {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  int found = -1;
  while (dirent* e = readdir(d)) {
    int fd = atoi(e->d_name);
    if (fd <= 2) continue;
    sockaddr_in local{}, peer{};
    socklen_t ll = sizeof local, pl = sizeof peer;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0 || local.sin_family != AF_INET)
      continue;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0) continue;
    if (ntohs(local.sin_port) == server_port && ntohs(peer.sin_port) == remote_port) {
      found = fd;
      break;
    }
  }
  closedir(d);
  return found;
}

// True when the client has hung up (it timed out while we were delaying).
bool peer_closed(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char c;
  return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

// Abortive close: linger 0 makes the close send RST; dup2 swaps in a fresh unconnected socket
// so cpp-httplib's own later close() closes that one, never a reused descriptor.
void reset_connection(int fd) {
  if (fd < 0) return;
  linger lg{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  int dummy = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (dummy >= 0) {
    dup2(dummy, fd);
    close(dummy);
  }
}

int64_t prompt_tokens_of(const json& body) {
  int64_t chars = 0;
  if (body.contains("messages") && body["messages"].is_array())
    for (const auto& m : body["messages"])
      if (m.contains("content") && m["content"].is_string()) chars += m["content"].get<std::string>().size();
  return chars / 4 + 1;
}

json error_body(const std::string& message, const std::string& type, const json& code) {
  return {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}};
}

}  // namespace

FakeOpenAI::FakeOpenAI(ServerOptions opt) : opt_(std::move(opt)), svr_(std::make_unique<httplib::Server>()) {
  // A client that timed out leaves a closed socket behind; writing to it must not kill us.
  signal(SIGPIPE, SIG_IGN);
  int threads = opt_.threads;
  svr_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr_->Post("/v1/chat/completions",
             [this](const httplib::Request& req, httplib::Response& res) { handle_chat(req, res); });
  svr_->Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    json data = json::array();
    for (const auto& m : opt_.models) data.push_back({{"id", m}, {"object", "model"}, {"owned_by", "fake"}});
    res.set_content(json{{"object", "list"}, {"data", data}}.dump(), "application/json");
  });
  if (opt_.port == 0) {
    port_ = svr_->bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("fake OpenAI server: cannot bind 127.0.0.1");
  } else {
    if (!svr_->bind_to_port("127.0.0.1", opt_.port))
      throw std::runtime_error("fake OpenAI server: cannot bind 127.0.0.1:" + std::to_string(opt_.port));
    port_ = opt_.port;
  }
  thread_ = std::thread([this] { svr_->listen_after_bind(); });
  // cpp-httplib 0.11.4 has no wait_until_ready(): poll.
  for (int i = 0; i < 5000 && !svr_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeOpenAI::~FakeOpenAI() {
  stop();
  if (thread_.joinable()) thread_.join();
}

void FakeOpenAI::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  svr_->stop();
}

void FakeOpenAI::wait() {
  std::unique_lock lock(mu_);
  stop_cv_.wait(lock, [this] { return stopping_; });
}

std::string FakeOpenAI::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

void FakeOpenAI::script(std::vector<Behavior> behaviors) {
  std::lock_guard lock(mu_);
  script_.assign(behaviors.begin(), behaviors.end());
}

void FakeOpenAI::set_default(Behavior b) {
  std::lock_guard lock(mu_);
  default_ = std::move(b);
}

Behavior FakeOpenAI::next_behavior() {
  std::lock_guard lock(mu_);
  if (script_.empty()) return default_;
  Behavior b = script_.front();
  script_.pop_front();
  return b;
}

bool FakeOpenAI::sleep_unless_stopped(double s) {
  std::unique_lock lock(mu_);
  return !stop_cv_.wait_for(lock, std::chrono::duration<double>(s), [this] { return stopping_; });
}

int64_t FakeOpenAI::prompt_tokens_served() const {
  std::lock_guard lock(mu_);
  return prompt_served_;
}
int64_t FakeOpenAI::completion_tokens_served() const {
  std::lock_guard lock(mu_);
  return completion_served_;
}
std::vector<json> FakeOpenAI::bodies() const {
  std::lock_guard lock(mu_);
  return bodies_;
}
std::vector<std::string> FakeOpenAI::authorizations() const {
  std::lock_guard lock(mu_);
  return auths_;
}

void FakeOpenAI::handle_chat(const httplib::Request& req, httplib::Response& res) {
  int n = ++requests_;
  int now = ++in_flight_;
  for (int m = max_in_flight_.load(); now > m && !max_in_flight_.compare_exchange_weak(m, now);) {
  }
  struct Leave {
    std::atomic<int>& c;
    ~Leave() { --c; }
  } leave{in_flight_};

  json body;
  try {
    body = json::parse(req.body);
  } catch (const json::exception&) {
    res.status = 400;
    res.set_content(error_body("We could not parse the JSON body of your request.",
                               "invalid_request_error", nullptr).dump(), "application/json");
    return;
  }
  std::string auth = req.get_header_value("Authorization");
  {
    std::lock_guard lock(mu_);
    bodies_.push_back(body);
    auths_.push_back(auth);
  }
  if (!opt_.api_key.empty() && auth != "Bearer " + opt_.api_key) {
    // Like the real thing, echo what was sent (the client must never show it).
    std::string sent = auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : auth;
    res.status = 401;
    res.set_content(error_body("Incorrect API key provided: " + sent + ".", "invalid_request_error",
                               "invalid_api_key").dump(), "application/json");
    return;
  }
  std::string model = body.value("model", "");
  if (!opt_.models.empty() &&
      std::find(opt_.models.begin(), opt_.models.end(), model) == opt_.models.end()) {
    res.status = 404;
    res.set_content(error_body("The model `" + model + "` does not exist or you do not have access to it.",
                               "invalid_request_error", "model_not_found").dump(), "application/json");
    return;
  }

  Behavior b = next_behavior();
  if (b.delay_s > 0 && !sleep_unless_stopped(b.delay_s)) {
    res.status = 503;
    return;
  }
  int fd = find_socket(port_, req.remote_port);
  if (b.kind == "reset") {
    reset_connection(fd);
    return;
  }
  if (b.kind == "status") {
    res.status = b.status;
    if (!b.retry_after.empty()) res.set_header("Retry-After", b.retry_after);
    std::string type = b.status == 429 ? "rate_limit_error" : b.status >= 500 ? "server_error" : "invalid_request_error";
    res.set_content(error_body("fake failure " + std::to_string(b.status), type, nullptr).dump(),
                    "application/json");
    return;
  }
  if (b.kind == "malformed") {
    res.set_content("{\"id\": \"chatcmpl-fake\", \"choices\": [ {\"message\": ", "application/json");
    return;
  }

  std::string text = b.text;
  if (text.empty() && b.kind != "length") {
    std::string last;
    if (body.contains("messages") && body["messages"].is_array() && !body["messages"].empty())
      last = body["messages"].back().value("content", "");
    text = "Here is the kernel.\n```cpp\n// fake reply " + std::to_string(n) + " to: " +
           last.substr(0, 40) + "\nextern \"C\" int kernel() { return 0; }\n```\n";
  }
  int64_t prompt = prompt_tokens_of(body);
  int64_t completion = static_cast<int64_t>(text.size()) / 4 + 1;
  json message = {{"role", "assistant"}, {"content", text}};
  if (b.kind == "reasoning" || (b.kind == "length" && text.empty()))
    message["reasoning_content"] = "Let me think about the loop order.";
  json reply = {
      {"id", "chatcmpl-fake-" + std::to_string(n)},
      {"object", "chat.completion"},
      {"created", 1700000000},
      {"model", model},
      {"choices", json::array({{{"index", 0},
                                {"message", message},
                                {"finish_reason", b.kind == "length" ? "length" : "stop"}}})},
      {"usage",
       {{"prompt_tokens", prompt},
        {"completion_tokens", completion},
        {"total_tokens", prompt + completion}}}};
  if (b.kind == "empty") reply["choices"] = json::array();
  if (b.kind == "no_usage") reply.erase("usage");
  std::string out = reply.dump();

  if (b.kind == "truncated") {
    auto half = std::make_shared<std::string>(out.substr(0, out.size() / 2));
    res.set_content_provider(out.size(), "application/json",
                             [half](size_t, size_t, httplib::DataSink& sink) {
                               sink.write(half->data(), half->size());
                               return false;  // close the connection with the body half sent
                             });
    return;
  }
  bool counted = b.kind == "ok" || b.kind == "reasoning";
  if (counted && !peer_closed(fd)) {
    std::lock_guard lock(mu_);
    prompt_served_ += prompt;
    completion_served_ += completion;
  }
  res.set_content(out, "application/json");
}

}  // namespace evk::fake
