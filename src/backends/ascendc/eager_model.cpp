#include "backends/ascendc/eager_model.h"

#include <algorithm>
#include <map>
#include <set>

#include "backends/ascendc/npu_constants.h"
#include "backends/source_scan.h"

namespace evk {
namespace {

using nlohmann::json;

const std::set<std::string, std::less<>> kViews = {
    "view",    "reshape",    "size",   "getitem", "getattr",   "unsqueeze",
    "squeeze", "flatten",    "expand", "permute", "transpose", "t",
    "dim",     "contiguous", "chunk",  "split",   "unbind"};
const std::set<std::string, std::less<>> kCube = {
    "Linear",          "Conv1d", "Conv2d",     "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "matmul", "bmm",        "mm",     "linear",          "einsum",
    "baddbmm",         "addmm",  "__matmul__", "conv1d", "conv2d",          "conv3d",
    "conv_transpose2d"};

double numel(const json& shape) {
  if (!shape.is_array() || shape.empty()) return shape.is_array() ? 1 : 0;
  double n = 1;
  for (const auto& d : shape) n *= d.is_number() ? d.get<double>() : 1;
  return n;
}

// One operator as the library runs it: its roofline at the library's efficiencies, plus a
// launch. A kernel that reaches the roofline beats it by at most 1/efficiency on one operator.
double op_ms(double bytes, double flops, bool cube) {
  double peak = cube ? npu::kCubeFp32Gflops : npu::kVectorFp32Gflops;
  double ms = std::max(bytes / (npu::kHbmGBps * npu::kEagerHbmEfficiency * 1e6),
                       flops / (peak * npu::kEagerComputeEfficiency * 1e6));
  return ms + npu::kLaunchUs * 1e-3;
}

}  // namespace

double modeled_eager_ms(const Reference& r) {
  const json ops = r.meta.value("fx_ops", json::array());
  std::map<std::string, double, std::less<>> bytes_of;  // node name -> its output's bytes
  double total = 0;
  int kernels = 0;
  for (const auto& op : ops) {
    std::string name = op.value("name", ""), kind = op.value("kind", ""), what = op.value("op", "");
    double out = numel(op.value("shape", json())) * 4;
    bytes_of[name] = out;
    if (kind != "call_module" && kind != "call_function" && kind != "call_method") continue;
    if (kViews.count(what)) continue;
    double in = 0;
    std::string args = op.value("args", "");
    scan_identifiers(args, [&](std::string_view tok, size_t, size_t) -> std::optional<std::string> {
      if (auto it = bytes_of.find(tok); it != bytes_of.end() && it->first != name) in += it->second;
      return std::nullopt;
    });
    if (kind == "call_module") {
      std::string prefix = "param." + op.value("target", "") + ".";
      for (const auto& t : r.abi)
        if (t.name.rfind(prefix, 0) == 0) {
          double n = 1;
          for (auto d : t.shape) n *= static_cast<double>(d);
          in += n * 4;
        }
    }
    total += op_ms(in + out, op.value("flops", 0.0), kCube.count(what) > 0);
    ++kernels;
  }
  if (kernels == 0) total = op_ms(static_cast<double>(r.bytes), static_cast<double>(r.flops), true);
  return total;
}

}  // namespace evk
