// The runner's two output channels, shared by evk-runner and evk-runner-cuda: JSON-line events
// on the verdict descriptor, and raw output records in the outputs file (the formats are
// src/verify/runner_protocol.h). What a harness observed is gathered in Observations, whose
// `event()` is the "result" event the verifier parses.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace evk::runner {

class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}
  void emit(const nlohmann::json& e);  // throws Error when the channel is lost

 private:
  int fd_;
};

// Records are appended part by part (one part per output, ABI order), then named.
class RecordFile {
 public:
  void open(int fd) { fd_ = fd; }
  void append(const std::vector<uint8_t>& bytes);
  void end_record(const std::string& name) { names_.push_back(name); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  int fd_ = -1;
  std::vector<std::string> names_;
};

struct Observations {
  std::string mutated, late, failed_phase, exception;  // empty when nothing was seen
  int failed_rc = 0;
  int mixed_unchanged = -1;  // -1: the probe did not apply
  double median = 0, iqr = 0, min = 0;
  int trials = 0;
  // Median, IQR, minimum and count of the timed calls' milliseconds (at least one).
  void set_timing(std::vector<double> ms);
  nlohmann::json event(const std::vector<std::string>& records) const;
};

double now_ms();  // CLOCK_MONOTONIC
void sleep_ms(double ms);

}  // namespace evk::runner
