// The "cmd" provider: any program the user has as the coder (a CLI agent, a local model's
// runner, a script). `--model "cmd:/path/to/tool arg1 arg2"` runs the tool once per request:
//   stdin   one JSON object {"messages": [{"role", "content"}, ...], "temperature",
//           "max_tokens", "seed", "task"}, then EOF;
//   stdout  the reply text, as a model would write it (the code in a fenced block);
//   exit 0  success; anything else, or no exit within llm.timeout_s, is a failed request.
// The tool inherits the environment (its own API keys, say) plus EVK_TASK and EVK_SEED, and
// runs in its own process group: a timeout kills it and everything it started.
// Same contract as openai: (provider.h): llm.retries with back-off (llm.retry_base_s,
// llm.retry_max_s) on a timeout or a non-zero exit, never on an empty reply; at most
// llm.concurrency tools at once; usage estimated from characters (4 per token: a tool reports
// none); accounting, budgets and cassette recording come from make_provider's decorators.
#pragma once
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "llm/semaphore.h"

namespace evk {

struct CmdOptions {
  std::vector<std::string> argv;  // the tool and its arguments
  double timeout_s = 300;
  int retries = 4;
  double retry_base_s = 1, retry_max_s = 30;
  int concurrency = 4;
  size_t output_cap = 4 << 20;  // bytes of stdout kept; a longer reply fails the request

  // From "cmd:TOOL ARGS" and the llm.* keys. UsageError when the spec names no tool, the tool
  // is not an executable file (looked up on PATH when it has no '/'), or a quote is unclosed.
  static CmdOptions from_config(const Config& cfg, const std::string& spec);
};

// "tool 'an arg' \"another one\" plain": words split on white space, single or double quotes
// group. UsageError naming the spec when a quote is not closed.
std::vector<std::string> split_command(const std::string& spec);

class CmdProvider final : public Provider {
 public:
  explicit CmdProvider(CmdOptions opt);
  Completion complete(const std::vector<Message>& messages,
                      const CompletionOptions& opt) override;
  std::string name() const override;  // "cmd:" + the command line

  // What the tool reads on stdin.
  static nlohmann::json request(const std::vector<Message>& messages, const CompletionOptions& opt);

 private:
  double backoff_s(int retry);

  CmdOptions opt_;
  mutable Semaphore in_flight_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace evk
