#include "verify/runner_protocol.h"

#include <sstream>

namespace evk {
using nlohmann::json;

int64_t RunnerOutputSpec::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

size_t RunnerJob::record_bytes() const {
  size_t n = 0;
  for (const auto& o : outputs) n += o.nbytes();
  return n;
}

json to_json(const RunnerJob& j) {
  json outs = json::array();
  for (const auto& o : j.outputs)
    outs.push_back({{"name", o.name}, {"dtype", dtype_name(o.dtype)}, {"shape", o.shape}});
  return {{"library", j.library},
          {"seed_files", j.seed_files},
          {"abi", j.abi},
          {"outputs", outs},
          {"outputs_path", j.outputs_path},
          {"after_return_delay_ms", j.after_return_delay_ms},
          {"timing", j.timing},
          {"timing_budget_ms", j.timing_budget_ms},
          {"timing_max_trials", j.timing_max_trials},
          {"min_trials", j.min_trials}};
}

RunnerJob runner_job_from_json(const json& j) {
  RunnerJob r;
  r.library = j.at("library");
  r.seed_files = j.at("seed_files").get<std::vector<std::string>>();
  r.abi = j.at("abi").get<std::vector<std::string>>();
  for (const auto& o : j.at("outputs"))
    r.outputs.push_back({o.at("name"), dtype_from_name(o.at("dtype")),
                         o.at("shape").get<std::vector<int64_t>>()});
  r.outputs_path = j.at("outputs_path");
  r.after_return_delay_ms = j.value("after_return_delay_ms", 20.0);
  r.timing = j.value("timing", true);
  r.timing_budget_ms = j.value("timing_budget_ms", 1000.0);
  r.timing_max_trials = j.value("timing_max_trials", 200);
  r.min_trials = j.value("min_trials", 5);
  return r;
}

RunnerReport parse_runner_output(const std::string& out) {
  RunnerReport r;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    json e = json::parse(line, nullptr, false);
    if (e.is_discarded() || !e.is_object() || !e.contains("event")) continue;
    std::string ev = e.value("event", "");
    if (ev == "call") {
      r.last_phase = e.value("phase", "");
    } else if (ev == "load_error") {
      r.load_error = e.value("what", "");
    } else if (ev == "forbidden_syscall") {
      r.forbidden_syscall = e.value("name", "?");
    } else if (ev == "result") {
      r.finished = true;
      r.failed_rc = e.value("failed_rc", 0);
      r.failed_phase = e.value("failed_phase", "");
      r.exception = e.value("exception", "");
      r.records = e.value("records", std::vector<std::string>{});
      r.input_mutated = e.value("input_mutated", "");
      r.late_write = e.value("late_write", "");
      if (e.contains("mixed_unchanged") && e["mixed_unchanged"].is_boolean())
        r.mixed_unchanged = e["mixed_unchanged"].get<bool>();
      r.median_ms = e.value("median_ms", 0.0);
      r.iqr_ms = e.value("iqr_ms", 0.0);
      r.min_ms = e.value("min_ms", 0.0);
      r.trials = e.value("trials", 0);
      if (e.contains("modeled") && e["modeled"].is_object()) r.modeled = e["modeled"];
      if (e.contains("device_peaks") && e["device_peaks"].is_object()) {
        r.device_gbps = e["device_peaks"].value("gbps", 0.0);
        r.device_gflops = e["device_peaks"].value("gflops", 0.0);
      }
    }
  }
  return r;
}

}  // namespace evk
