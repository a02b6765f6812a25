#include "llm/cassette.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/hash.h"
#include "core/json_read.h"

namespace evk {
using json = nlohmann::json;

json cassette_request(const std::vector<Message>& messages, const CompletionOptions& opt) {
  json msgs = json::array();
  for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
  return {{"messages", msgs},
          {"temperature", opt.temperature},
          {"max_tokens", opt.max_tokens},
          {"seed", opt.seed},
          {"extra", opt.extra.is_null() ? json::object() : opt.extra}};
}

static std::string key_of(const std::string& model, const json& request) {
  json k = request;
  k["model"] = model;
  return short_hash(k.dump(), 16);  // nlohmann sorts object keys: the dump is canonical
}

std::string cassette_key(const std::string& model, const std::vector<Message>& messages,
                         const CompletionOptions& opt) {
  return key_of(model, cassette_request(messages, opt));
}

// ---- recording -----------------------------------------------------------------------------

namespace {

class AppendFile {
 public:
  explicit AppendFile(const std::filesystem::path& p) : path_(p) {
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    fd_ = ::open(p.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw UsageError("cannot open cassette " + p.string() + " for appending: " +
                       std::strerror(errno) + " (check the path in llm.record)");
  }
  ~AppendFile() { ::close(fd_); }
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // One write(2) per line: O_APPEND makes it atomic with respect to other appenders.
  void append_line(const std::string& line) {
    std::lock_guard lock(mu_);
    ssize_t n;
    do n = ::write(fd_, line.data(), line.size());
    while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(line.size()))
      throw Error("cannot append to cassette " + path_.string() + ": " +
                  (n < 0 ? std::string(std::strerror(errno)) : "short write"));
  }

 private:
  std::filesystem::path path_;
  int fd_;
  std::mutex mu_;
};

json reply_json(const Completion& c) {
  return {{"text", c.text},
          {"reasoning", c.reasoning},
          {"finish_reason", c.finish_reason},
          {"model", c.model},
          {"usage",
           {{"prompt_tokens", c.usage.prompt_tokens},
            {"completion_tokens", c.usage.completion_tokens},
            {"estimated", c.usage.estimated}}},
          {"latency_s", c.latency_s},
          {"attempts", c.attempts}};
}

Completion reply_from_json(const json& r) {
  Completion c;
  c.text = r.at("text").get<std::string>();
  c.reasoning = r.value("reasoning", "");
  c.finish_reason = r.value("finish_reason", "");
  c.model = r.value("model", "");
  const json& u = r.at("usage");
  c.usage.prompt_tokens = json_int<int64_t>(u.at("prompt_tokens"));
  c.usage.completion_tokens = json_int<int64_t>(u.at("completion_tokens"));
  c.usage.estimated = u.value("estimated", false);
  c.latency_s = r.value("latency_s", 0.0);
  c.attempts = 1;  // a replayed answer takes one (local) request
  return c;
}

// A recorded request as cassette_request writes it: what the miss message compares against.
const json& checked_request(const json& r) {
  auto bad = [&](const std::string& what) {
    return json::type_error::create(302, "request: " + what, &r);
  };
  if (!r.is_object() || !r.contains("messages") || !r["messages"].is_array())
    throw bad("must be an object with a \"messages\" list");
  for (const auto& m : r["messages"])
    if (!m.is_object() || !m.value("role", json()).is_string() ||
        !m.value("content", json()).is_string())
      throw bad("each message must be {\"role\": TEXT, \"content\": TEXT}");
  return r;
}

class RecordingProvider final : public Provider {
 public:
  RecordingProvider(std::unique_ptr<Provider> inner, const std::filesystem::path& path,
                    std::string model)
      : inner_(std::move(inner)), file_(path), model_(std::move(model)) {}

  Completion complete(const std::vector<Message>& messages,
                      const CompletionOptions& opt) override {
    Completion c = inner_->complete(messages, opt);
    json req = cassette_request(messages, opt);
    json line = {{"v", 1},          {"key", key_of(model_, req)}, {"model", model_},
                 {"task", opt.task}, {"request", req},             {"reply", reply_json(c)}};
    file_.append_line(line.dump() + "\n");
    return c;
  }
  std::string name() const override { return inner_->name(); }
  bool simulated() const override { return inner_->simulated(); }

 private:
  std::unique_ptr<Provider> inner_;
  AppendFile file_;
  const std::string model_;
};

}  // namespace

std::unique_ptr<Provider> with_recording(std::unique_ptr<Provider> inner,
                                         const std::filesystem::path& path, std::string model) {
  return std::make_unique<RecordingProvider>(std::move(inner), path, std::move(model));
}

// ---- replay --------------------------------------------------------------------------------

ReplayProvider::ReplayProvider(const std::filesystem::path& path) : path_(path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UsageError("cannot read cassette " + path.string() +
                     ": check the path in replay:FILE (record one by setting llm.record = FILE, in "
                     "evokernel.toml or as EVK_LLM_RECORD)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    bool torn = nl == std::string::npos;
    std::string line = text.substr(pos, torn ? std::string::npos : nl - pos);
    pos = torn ? text.size() : nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      json j = parse_json(line);
      Entry e{line_no, j.at("key").get<std::string>(), j.at("model").get<std::string>(),
              checked_request(j.at("request")), reply_from_json(j.at("reply"))};
      if (std::find(models_.begin(), models_.end(), e.model) == models_.end())
        models_.push_back(e.model);
      by_key_[e.key].push_back(entries_.size());
      entries_.push_back(std::move(e));
    } catch (const json::exception& ex) {
      if (torn) break;  // an append cut short by a crash
      throw Error(fmt::format("{}:{}: not a cassette entry ({})", path.string(), line_no, ex.what()));
    }
  }
}

Completion ReplayProvider::complete(const std::vector<Message>& messages,
                                    const CompletionOptions& opt) {
  json req = cassette_request(messages, opt);
  std::lock_guard lock(mu_);
  std::string first_key;
  for (const auto& model : models_) {
    std::string key = key_of(model, req);
    if (first_key.empty()) first_key = key;
    auto it = by_key_.find(key);
    if (it == by_key_.end()) continue;
    size_t& used = next_[key];
    if (used >= it->second.size())
      throw ProviderError("replay_miss", miss_message(key, req, used));
    return entries_[it->second[used++]].reply;
  }
  if (first_key.empty()) first_key = key_of("", req);
  throw ProviderError("replay_miss", miss_message(first_key, req, 0));
}

static std::string clip(const std::string& s, size_t at, size_t n = 60) {
  size_t b = at > n / 2 ? at - n / 2 : 0;
  std::string out = s.substr(b, n);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return (b ? "..." : "") + out + (b + n < s.size() ? "..." : "");
}

// How many leading messages two requests share, and the first difference in words.
static std::pair<size_t, std::string> compare(const json& rec, const json& req) {
  const json& a = rec.at("messages");
  const json& b = req.at("messages");
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i < a.size() && i < b.size()) {
    std::string ra = a[i].value("role", ""), rb = b[i].value("role", "");
    if (ra != rb)
      return {i, fmt::format("message {} has role '{}' recorded vs '{}' requested", i, ra, rb)};
    std::string ca = a[i].value("content", ""), cb = b[i].value("content", "");
    size_t at = 0;
    while (at < ca.size() && at < cb.size() && ca[at] == cb[at]) ++at;
    return {i, fmt::format("message {} ({}) differs at character {}: recorded \"{}\" vs requested \"{}\"",
                           i, ra, at, clip(ca, at), clip(cb, at))};
  }
  if (a.size() != b.size())
    return {i, fmt::format("recorded {} messages vs {} requested", a.size(), b.size())};
  for (const char* k : {"temperature", "max_tokens", "seed", "extra"})
    if (rec.value(k, json()) != req.value(k, json()))
      return {i + 1, fmt::format("messages match; option '{}' is {} recorded vs {} requested", k,
                                 rec.value(k, json()).dump(), req.value(k, json()).dump())};
  return {i + 2, "identical request"};
}

std::string ReplayProvider::miss_message(const std::string& key, const json& request,
                                         size_t used) const {
  std::string head = fmt::format("replay miss in {}: no recorded answer for request {}",
                                 path_.string(), key);
  if (used > 0)
    return head + fmt::format(" beyond the {} recorded (identical requests replay in order)", used);
  if (entries_.empty()) return head + " (the cassette is empty)";
  const Entry* best = nullptr;
  std::pair<size_t, std::string> best_cmp{0, ""};
  for (const auto& e : entries_) {
    auto c = compare(e.request, request);
    if (!best || c.first > best_cmp.first) best = &e, best_cmp = c;
  }
  return head + fmt::format("; closest recorded entry (line {}, key {}, model {}): {}", best->line,
                            best->key, best->model, best_cmp.second);
}

}  // namespace evk
