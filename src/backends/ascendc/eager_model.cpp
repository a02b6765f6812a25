#include "backends/ascendc/eager_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include "backends/ascendc/npu_constants.h"
#include "backends/source_scan.h"
#include "core/build_id.h"
#include "core/hash.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace {

using nlohmann::json;

const std::set<std::string, std::less<>> kViews = {
    "view",    "reshape",    "size",   "getitem", "getattr",   "unsqueeze",
    "squeeze", "flatten",    "expand", "permute", "transpose", "t",
    "dim",     "contiguous", "chunk",  "split",   "unbind"};
const std::set<std::string, std::less<>> kCube = {
    "linear",          "conv1d",          "conv2d", "conv3d",     "convtranspose1d",
    "convtranspose2d", "convtranspose3d", "matmul", "bmm",        "mm",
    "einsum",          "baddbmm",         "addmm",  "__matmul__", "conv_transpose2d"};

double numel(const json& shape) {
  if (!shape.is_array() || shape.empty()) return shape.is_array() ? 1 : 0;
  double n = 1;
  for (const auto& d : shape) n *= d.is_number() ? d.get<double>() : 1;
  return n;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The numbers among an argument list's tokens: "(mul, -1.5, 1.5)" -> -1.5, 1.5.
void numbers_in(const std::string& text, std::vector<double>* out) {
  std::string tok;
  auto flush = [&] {
    if (tok.empty()) return;
    char* end = nullptr;
    double v = std::strtod(tok.c_str(), &end);
    if (end && *end == '\0' &&
        (std::isdigit(static_cast<unsigned char>(tok[0])) || tok[0] == '-' || tok[0] == '.'))
      out->push_back(v);
    tok.clear();
  };
  for (char c : text) {
    if (c == '(' || c == ')' || c == ',' || c == ' ' || c == '[' || c == ']' || c == '{' ||
        c == '}' || c == ':')
      flush();
    else
      tok += c;
  }
  flush();
}

// One operator as the library runs it without a kernel: its roofline at the library's
// efficiencies, plus a launch.
double roofline_ms(double bytes, double flops, bool cube) {
  double peak = cube ? npu::kCubeFp32Gflops : npu::kVectorFp32Gflops;
  double ms = std::max(bytes / (npu::kHbmGBps * npu::kEagerHbmEfficiency * 1e6),
                       flops / (peak * npu::kEagerComputeEfficiency * 1e6));
  return ms + npu::kLaunchUs * 1e-3;
}

double request_bytes(const json& req) {
  double b = numel(req.at("out"));
  for (const auto& s : req.at("in")) b += numel(s);
  return 4 * b;
}

// The per-operator cache: in this process, and on disk beside a reference's meta.json.
std::mutex g_mu;
std::map<std::string, json>& memo() {
  static std::map<std::string, json> m;
  return m;
}

std::filesystem::path disk_cache(const Reference& r) {
  return r.meta_path.empty() ? std::filesystem::path()
                             : r.meta_path.parent_path() / "ascendc_eager.json";
}

// Runs the library on the requests not cached; fills `results` (key -> the program's reply for
// that op). A failed run leaves them out, with the reason in `error`.
void run_library(const std::filesystem::path& exe, const std::vector<json>& reqs,
                 const std::vector<std::string>& keys, std::map<std::string, json>* results,
                 std::string* error) {
  json ops = json::array();
  std::vector<std::string> asked;
  for (size_t i = 0; i < reqs.size(); ++i)
    if (reqs[i].at("out").is_array() && !results->count(keys[i]) &&
        std::find(asked.begin(), asked.end(), keys[i]) == asked.end()) {
      ops.push_back(reqs[i]);
      asked.push_back(keys[i]);
    }
  if (asked.empty()) return;
  ProcessOptions po;
  po.stdin_data = json{{"numerics", false}, {"ops", ops}}.dump();
  po.timeout_s = 300;
  ProcessResult pr = run_process({exe.string()}, po);
  if (!pr.ok()) {
    std::string err = pr.err.substr(0, pr.err.find('\n'));
    *error = fmt::format("{} {}{}", exe.filename().string(), pr.describe(),
                         err.empty() ? "" : ": " + err);
    return;
  }
  try {
    json reply = json::parse(pr.out).at("ops");
    for (size_t i = 0; i < asked.size() && i < reply.size(); ++i) (*results)[asked[i]] = reply[i];
  } catch (const std::exception& e) {
    *error =
        fmt::format("{} replied with no readable result ({})", exe.filename().string(), e.what());
  }
}

}  // namespace

std::string EagerCost::basis() const {
  if (library_ops == 0) return "roofline";
  if (fallback.empty()) return "library kernels";
  std::string ops;
  for (const auto& f : fallback) ops += (ops.empty() ? "" : ", ") + f.substr(0, f.find(':'));
  return "library kernels; roofline for " + ops;
}

json EagerCost::to_json() const {
  return {{"ms", ms}, {"basis", basis()}, {"library_ops", library_ops}, {"fallback", fallback}};
}

json library_request(const json& op, const std::map<std::string, json>& shapes,
                     const Reference& r) {
  std::string kind = op.value("kind", ""), what = op.value("op", "");
  if (kind != "call_module" && kind != "call_function" && kind != "call_method") return nullptr;
  if (kViews.count(what)) return nullptr;
  json in = json::array();
  std::string args = op.value("args", "");
  scan_identifiers(args, [&](std::string_view tok, size_t, size_t) -> std::optional<std::string> {
    if (auto it = shapes.find(std::string(tok));
        it != shapes.end() && it->first != op.value("name", ""))
      in.push_back(it->second);
    return std::nullopt;
  });
  if (kind == "call_module") {  // the module's parameters follow its inputs (state_dict order)
    std::string prefix = "param." + op.value("target", "") + ".";
    for (const auto& t : r.abi)
      if (t.name.rfind(prefix, 0) == 0) in.push_back(t.shape);
    what = lower(what);
  }
  std::vector<double> scalars;
  numbers_in(args, &scalars);
  numbers_in(op.value("kwargs", ""), &scalars);
  return {{"op", what},
          {"in", in},
          {"out", op.value("shape", json::array())},
          {"scalars", scalars},
          {"flops", op.value("flops", 0.0)}};
}

EagerCost modeled_eager(const Reference& r, const std::filesystem::path& eager_exe) {
  const json ops = r.meta.value("fx_ops", json::array());
  std::map<std::string, json> shapes;  // node name -> its output's shape
  std::vector<json> reqs;
  for (const auto& op : ops) {
    json req = library_request(op, shapes, r);
    shapes[op.value("name", "")] = op.value("shape", json());
    if (!req.is_null()) reqs.push_back(req);
  }
  EagerCost cost;
  if (reqs.empty()) {
    cost.ms = roofline_ms(static_cast<double>(r.bytes), static_cast<double>(r.flops), true);
    cost.fallback.push_back("the task: no traced fx graph");
    return cost;
  }
  std::string id = build_identity(eager_exe);
  std::vector<std::string> keys;
  for (auto req : reqs) {
    req.erase("flops");
    keys.push_back(sha256_hex(id + '\n' + req.dump()));
  }
  std::map<std::string, json> results;
  std::string error =
      id.empty() ? eager_exe.filename().string() + " is not built (make build)" : "";
  std::filesystem::path disk = disk_cache(r);
  {
    std::lock_guard lk(g_mu);
    json on_disk;
    if (!disk.empty() && std::filesystem::exists(disk)) try {
        on_disk = json::parse(read_file(disk));
      } catch (const std::exception&) {  // a torn or foreign file: computed again
      }
    for (const auto& k : keys)
      if (memo().count(k))
        results[k] = memo()[k];
      else if (on_disk.is_object() && on_disk.contains(k))
        results[k] = memo()[k] = on_disk[k];
  }
  if (error.empty()) {
    std::vector<json> plain = reqs;
    for (auto& q : plain) q.erase("flops");
    run_library(eager_exe, plain, keys, &results, &error);
    std::lock_guard lk(g_mu);
    json all = json::object();
    for (const auto& k : keys)
      if (results.count(k)) all[k] = memo()[k] = results[k];
    if (!disk.empty() && !all.empty()) try {
        write_file_atomic(disk, all.dump());
      } catch (const std::exception&) {  // a read-only cache: the memo still holds it
      }
  }
  for (size_t i = 0; i < reqs.size(); ++i) {
    const json& req = reqs[i];
    auto it = results.find(keys[i]);
    if (!req.at("out").is_array()) {  // (values, indices) and other tuples: not one tensor
      cost.fallback.push_back(req.at("op").get<std::string>() +
                              ": an output that is not one tensor");
      cost.ms += roofline_ms(request_bytes(req), req.value("flops", 0.0), false);
      continue;
    }
    if (it != results.end() && it->second.value("ms", 0.0) > 0) {
      cost.ms += it->second.at("ms").get<double>();
      ++cost.library_ops;
      continue;
    }
    std::string op = req.at("op").get<std::string>();
    std::string why = it != results.end() ? it->second.value("why", "no library kernel") : error;
    cost.fallback.push_back(op + ": " + why);
    cost.ms += roofline_ms(request_bytes(req), req.value("flops", 0.0), kCube.count(op) > 0);
  }
  return cost;
}

}  // namespace evk
