// The runner's side of the channels of src/verify/runner_protocol.h, shared by evk-runner and
// evk-runner-cuda: events on the stdout descriptor, the shared input and output regions, and
// the control socket's command/reply lines.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verify/runner_protocol.h"

namespace evk::runner {

// JSON lines on one descriptor (stdout events, control replies). A leading newline ends any
// partial line a kernel may have left on it.
class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}
  void emit(const nlohmann::json& e);  // throws Error when the channel is lost

 private:
  int fd_;
};

// Reads one command line from the control socket; nullopt at end of stream.
class CommandReader {
 public:
  explicit CommandReader(int fd) : fd_(fd) {}
  std::optional<nlohmann::json> next();

 private:
  int fd_;
  std::string buf_;
};

// A memfd mapped into this process (read-only for inputs, shared read-write for outputs).
class Mapping {
 public:
  Mapping(int fd, size_t bytes, bool writable);
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  uint8_t* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  uint8_t* p_ = nullptr;
  size_t n_ = 0;
};

double now_ms();  // CLOCK_MONOTONIC

}  // namespace evk::runner
