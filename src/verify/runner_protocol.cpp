#include "verify/runner_protocol.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "core/json_read.h"

namespace evk {
using nlohmann::json;

namespace {
size_t aligned(size_t n) { return (n + kRunnerAlign - 1) / kRunnerAlign * kRunnerAlign; }
}  // namespace

int64_t RunnerOutputSpec::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<size_t> output_offsets(const RunnerSet& s) {
  std::vector<size_t> off;
  size_t at = 0;
  for (const auto& o : s.outputs) {
    off.push_back(at);
    at += aligned(o.nbytes());
  }
  return off;
}

size_t RunnerSet::record_bytes() const {
  size_t n = 0;
  for (const auto& o : outputs) n += aligned(o.nbytes());
  return n;
}

json to_json(const RunnerJob& j) {
  json sets = json::array();
  for (const auto& s : j.sets) {
    json ins = json::array(), outs = json::array();
    for (const auto& t : s.inputs)
      ins.push_back({{"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"offset", t.offset},
                     {"nbytes", t.nbytes}});
    for (const auto& o : s.outputs)
      outs.push_back({{"name", o.name}, {"dtype", dtype_name(o.dtype)}, {"shape", o.shape}});
    sets.push_back({{"inputs", ins}, {"outputs", outs}});
  }
  return {{"library", j.library},       {"abi", j.abi},
          {"sets", sets},               {"inputs_fd", j.inputs_fd},
          {"outputs_fd", j.outputs_fd}, {"control_fd", j.control_fd},
          {"inputs_bytes", j.inputs_bytes}, {"slot_bytes", j.slot_bytes},
          {"slots", j.slots},               {"trace_fd", j.trace_fd},
          {"trace_bytes", j.trace_bytes}};
}

RunnerJob runner_job_from_json(const json& j) {
  RunnerJob r;
  r.library = j.at("library");
  r.abi = j.at("abi").get<std::vector<std::string>>();
  for (const auto& s : j.at("sets")) {
    RunnerSet set;
    for (const auto& t : s.at("inputs"))
      set.inputs.push_back({dtype_from_name(t.at("dtype")), t.at("shape").get<std::vector<int64_t>>(),
                            t.at("offset").get<uint64_t>(), t.at("nbytes").get<uint64_t>()});
    for (const auto& o : s.at("outputs"))
      set.outputs.push_back({o.at("name"), dtype_from_name(o.at("dtype")),
                             o.at("shape").get<std::vector<int64_t>>()});
    r.sets.push_back(std::move(set));
  }
  r.inputs_fd = j.at("inputs_fd");
  r.outputs_fd = j.at("outputs_fd");
  r.control_fd = j.at("control_fd");
  r.inputs_bytes = j.at("inputs_bytes");
  r.slot_bytes = j.at("slot_bytes");
  r.slots = j.at("slots");
  r.trace_fd = j.value("trace_fd", -1);
  r.trace_bytes = j.value("trace_bytes", uint64_t{0});
  return r;
}

namespace {
// A member that should be a string: its text, or its JSON when the runner sent another type.
std::string text_of(const json& e, const char* key, const char* dflt) {
  auto it = e.find(key);
  if (it == e.end()) return dflt;
  return it->is_string() ? it->get<std::string>() : it->dump();
}
double number_of(const json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_number() ? it->get<double>() : 0.0;
}
}  // namespace

RunnerReport parse_runner_output(const std::string& out) {
  RunnerReport r;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    json e;
    try {
      e = parse_json(line);
    } catch (const json::exception&) {
      continue;  // a kernel may print
    }
    if (!e.is_object() || !e.contains("event") || !e["event"].is_string()) continue;
    const std::string ev = e["event"].get<std::string>();
    if (ev == "load_error") {
      r.load_error = text_of(e, "what", "");
    } else if (ev == "forbidden_syscall") {
      r.forbidden_syscall = text_of(e, "name", "?");
    } else if (ev == "result") {
      ++r.forged_results;
    } else if (ev == "device_peaks") {
      r.device_gbps = number_of(e, "gbps");
      r.device_gflops = number_of(e, "gflops");
    }
  }
  return r;
}

std::optional<json> parse_runner_reply(const std::string& line, const char* expect) {
  try {
    json j = parse_json(line);
    if (j.is_object() && j.contains(expect)) return j;
  } catch (const json::exception&) {
  }
  return std::nullopt;
}

RunnerDone parse_runner_done(const json& done) {
  RunnerDone d;
  if (auto it = done.find("ms"); it != done.end()) {
    if (!it->is_array()) throw Error("\"ms\" is not a list");
    for (const auto& x : *it) {
      if (!x.is_number()) throw Error("\"ms\" holds " + x.dump().substr(0, 40));
      d.ms.push_back(x.get<double>());
    }
  }
  auto int_field = [&](const char* key, int dflt) {
    try {
      return json_int(done, key, dflt);
    } catch (const json::exception& e) {
      throw Error(std::string("\"") + key + "\": " + e.what());
    }
  };
  d.rc = int_field("rc", 0);
  d.failed_call = int_field("failed_call", -1);
  auto ex = done.find("exception");
  if (ex != done.end() && !ex->is_string()) throw Error("\"exception\" is not a string");
  if (ex != done.end()) d.exception = ex->get<std::string>();
  if (done.contains("modeled")) d.modeled = done["modeled"];
  return d;
}

void poison_bytes(DType t, uint8_t* p, size_t n) {
  switch (t) {
    case DType::F32: {
      // One element, then doubling copies: a memory pass, whatever the alignment.
      float v = std::numeric_limits<float>::quiet_NaN();
      size_t whole = n / 4 * 4;
      if (whole == 0) break;
      std::memcpy(p, &v, 4);
      for (size_t done = 4; done < whole; done *= 2) std::memcpy(p + done, p, std::min(done, whole - done));
      break;
    }
    case DType::F64: {
      double v = std::numeric_limits<double>::quiet_NaN();
      for (size_t i = 0; i + 8 <= n; i += 8) std::memcpy(p + i, &v, 8);
      break;
    }
    case DType::F16:
      for (size_t i = 0; i + 1 < n; i += 2) p[i] = 0x00, p[i + 1] = 0x7e;
      break;
    default:
      std::memset(p, 0xA5, n);
  }
}

}  // namespace evk
