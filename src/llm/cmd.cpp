#include "llm/cmd.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "core/process.h"
#include "llm/openai.h"  // estimate_usage, split_think

namespace evk {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<std::string> split_command(const std::string& spec) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : spec) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote)
    throw UsageError(fmt::format("model 'cmd:{}': a {} quote is not closed", spec, quote));
  if (in_word) out.push_back(cur);
  return out;
}

namespace {

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// The tool as a path: as given when it holds a '/', else the first match on PATH.
std::optional<fs::path> find_tool(const std::string& tool) {
  if (tool.find('/') != std::string::npos)
    return is_executable(tool) ? std::optional<fs::path>(tool) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t pos = 0; pos <= dirs.size();) {
    size_t colon = dirs.find(':', pos);
    std::string dir = dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    if (!dir.empty() && is_executable(fs::path(dir) / tool)) return fs::path(dir) / tool;
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return std::nullopt;
}

std::string tail_of(const std::string& s, size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}

}  // namespace

CmdOptions CmdOptions::from_config(const Config& cfg, const std::string& spec) {
  CmdOptions o;
  o.argv = split_command(spec);
  if (o.argv.empty())
    throw UsageError("model 'cmd:' names no command: use cmd:/path/to/tool [args], e.g. "
                     "--model \"cmd:/usr/local/bin/my-coder --fast\"");
  auto tool = find_tool(o.argv[0]);
  if (!tool)
    throw UsageError(fmt::format(
        "model 'cmd:{}': '{}' is not an executable file{} (check the path and chmod +x)", spec,
        o.argv[0], o.argv[0].find('/') == std::string::npos ? " on PATH" : ""));
  o.argv[0] = tool->string();
  o.timeout_s = cfg.real("llm.timeout_s");
  o.retries = static_cast<int>(cfg.integer("llm.retries"));
  o.retry_base_s = cfg.real("llm.retry_base_s");
  o.retry_max_s = cfg.real("llm.retry_max_s");
  o.concurrency = static_cast<int>(cfg.integer("llm.concurrency"));
  if (o.timeout_s <= 0) throw UsageError("llm.timeout_s must be > 0 seconds");
  if (o.retries < 0 || o.retry_base_s < 0 || o.retry_max_s < 0)
    throw UsageError("llm.retries and llm.retry_*_s must be >= 0");
  if (o.concurrency < 1) throw UsageError("llm.concurrency must be >= 1");
  return o;
}

CmdProvider::CmdProvider(CmdOptions opt)
    : opt_(std::move(opt)), in_flight_(opt_.concurrency), rng_(std::random_device{}()) {}

std::string CmdProvider::name() const {
  std::string s = "cmd:";
  for (size_t i = 0; i < opt_.argv.size(); ++i) s += (i ? " " : "") + opt_.argv[i];
  return s;
}

json CmdProvider::request(const std::vector<Message>& messages, const CompletionOptions& o) {
  json msgs = json::array();
  for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
  return {{"messages", msgs},
          {"temperature", o.temperature},
          {"max_tokens", o.max_tokens},
          {"seed", o.seed},
          {"task", o.task}};
}

double CmdProvider::backoff_s(int retry) {
  double d = std::min(opt_.retry_max_s, opt_.retry_base_s * std::pow(2.0, retry - 1));
  std::lock_guard lock(rng_mu_);
  return d * std::uniform_real_distribution<double>(0.5, 1.0)(rng_);
}

Completion CmdProvider::complete(const std::vector<Message>& messages,
                                 const CompletionOptions& opt) {
  ProcessOptions po;
  po.stdin_data = request(messages, opt).dump();
  po.timeout_s = opt_.timeout_s;
  po.output_cap = opt_.output_cap;
  po.env["EVK_TASK"] = opt.task;
  po.env["EVK_SEED"] = std::to_string(opt.seed);
  const std::string who = "the coder command " + opt_.argv[0];
  const int max_attempts = opt_.retries + 1;
  for (int a = 1;; ++a) {
    ProcessResult r;
    {
      Semaphore::Permit permit(in_flight_);
      r = run_process(opt_.argv, po);
    }
    std::string kind, why;
    if (r.timed_out) {
      kind = "timeout";
      why = fmt::format("{} did not answer within llm.timeout_s = {} s", who, opt_.timeout_s);
    } else if (r.out_truncated) {
      throw ProviderError("malformed", fmt::format("{} printed more than {} MiB: a reply is the "
                                                   "text of one answer", who, opt_.output_cap >> 20),
                          0, a);
    } else if (!r.ok()) {
      kind = "cmd";
      why = fmt::format("{} failed ({}){}", who, r.describe(),
                        r.err.empty() ? "" : "; its stderr ended: " + tail_of(r.err, 400));
    } else if (r.out.find_first_not_of(" \t\r\n") == std::string::npos) {
      throw ProviderError("empty", who + " exited 0 but printed no reply on stdout", 0, a);
    } else {
      Completion c;
      c.text = r.out;
      split_think(c);
      c.usage = estimate_usage(messages, c.reasoning + c.text);
      c.latency_s = r.wall_s;
      c.finish_reason = "stop";
      c.model = name();
      c.attempts = a;
      return c;
    }
    if (a >= max_attempts)
      throw ProviderError(kind, a > 1 ? fmt::format("{} (gave up after {} attempts)", why, a) : why,
                          0, a);
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff_s(a)));
  }
}

}  // namespace evk
