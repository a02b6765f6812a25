// Record and replay: a cassette is a JSON Lines file, one exchange per line:
//   {"v":1,"key":"<16 hex>","model":"openai:gpt-5.2","task":"relu",
//    "request":{"messages":[...],"temperature":0.7,"max_tokens":4096,"seed":3,"extra":{}},
//    "reply":{"text":...,"reasoning":...,"finish_reason":...,"model":...,
//             "usage":{"prompt_tokens":..,"completion_tokens":..,"estimated":false},
//             "latency_s":..,"attempts":..}}
// key = short hash of (model, messages, temperature, max_tokens, seed, extra); the task is
// not part of it.
// Invariants:
//   - Recording appends each line with one write(2) on an O_APPEND descriptor, so lines from
//     concurrent callers (threads or processes) never interleave, and a crash loses at most
//     the exchange in progress. Only successful exchanges are recorded.
//   - Replay answers identical requests in the order they were recorded; asking once more
//     than recorded is a miss. A miss names the key and the first difference from the
//     closest recorded request.
#pragma once
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "llm/provider.h"

namespace evk {

// The canonical request object that is hashed (and stored under "request", plus model).
nlohmann::json cassette_request(const std::vector<Message>& messages, const CompletionOptions& opt);
std::string cassette_key(const std::string& model, const std::vector<Message>& messages,
                         const CompletionOptions& opt);

// Wraps `inner`, appending what it answers to `path` under the model name `model`.
std::unique_ptr<Provider> with_recording(std::unique_ptr<Provider> inner,
                                         const std::filesystem::path& path, std::string model);

class ReplayProvider final : public Provider {
 public:
  // Loads the whole cassette; UsageError when it cannot be read, Error naming file:line for a
  // line that is not a cassette entry (a torn last line, without newline, is ignored).
  explicit ReplayProvider(const std::filesystem::path& path);
  Completion complete(const std::vector<Message>& messages,
                      const CompletionOptions& opt) override;
  std::string name() const override { return "replay:" + path_.string(); }
  // A replay of what the offline sim answered is a simulated run too (same labels, same
  // verifier settings as the run that was recorded).
  bool simulated() const override {
    return !models_.empty() && std::all_of(models_.begin(), models_.end(),
                                           [](const std::string& m) { return m == "sim"; });
  }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    int line;
    std::string key, model;
    nlohmann::json request;
    Completion reply;
  };
  std::string miss_message(const std::string& key, const nlohmann::json& request,
                           size_t used) const;

  std::filesystem::path path_;
  std::vector<Entry> entries_;
  std::vector<std::string> models_;  // distinct, in order of first appearance
  std::map<std::string, std::vector<size_t>> by_key_;
  std::mutex mu_;
  std::map<std::string, size_t> next_;  // key -> how many of its entries were replayed
};

}  // namespace evk
