#include "llm/sim_provider.h"

#include <cctype>
#include <chrono>

#include "sim/sim.h"

namespace evk {

namespace {

class SimProvider : public Provider {
 public:
  explicit SimProvider(SimOptions opt) : opt_(opt) {}

  Completion complete(const std::vector<Message>& messages, const CompletionOptions& o) override {
    auto t0 = std::chrono::steady_clock::now();
    const Message* user = nullptr;
    int64_t words_in = 0;
    for (const Message& m : messages) {
      if (m.role == "user") user = &m;
      words_in += words(m.content);
    }
    if (!user) throw ProviderError("empty", "the sim coder was called without a user message");
    uint64_t h = 1469598103934665603ULL;  // FNV-1a of the prompt
    for (unsigned char c : user->content) h = (h ^ c) * 1099511628211ULL;
    Completion c;
    c.text = sim_reply(user->content, o.seed * 0x9e3779b97f4a7c15ULL ^ h, opt_);
    c.usage.prompt_tokens = words_in;
    c.usage.completion_tokens = words(c.text);
    c.usage.estimated = true;
    c.finish_reason = "stop";
    c.model = "sim";
    c.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
  }
  std::string name() const override { return "sim"; }
  bool simulated() const override { return true; }

 private:
  static int64_t words(const std::string& s) {
    int64_t n = 0;
    bool in = false;
    for (char ch : s) {
      bool sp = std::isspace(static_cast<unsigned char>(ch));
      if (!sp && !in) ++n;
      in = !sp;
    }
    return n;
  }
  SimOptions opt_;
};

}  // namespace

std::unique_ptr<Provider> make_sim_provider(const Config& config) {
  return std::make_unique<SimProvider>(sim_options(config));
}

}  // namespace evk
