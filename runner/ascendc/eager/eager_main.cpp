// evk-ascendc-eager: the Ascend C eager baseline's reference library on the emulated 910B.
//   evk-ascendc-eager < request.json
// The request is {"numerics": bool, "ops": [{"op", "in": [shape...], "out": shape,
// "scalars": [...]}...]}; each op runs alone on a fresh device (its operands in global memory,
// float32) as the library's kernel for it, and the reply (stdout, one JSON object) gives per
// op the kernel, its modeled cycles and milliseconds (the launch cost included), or null and
// why when the library has no kernel for it. With "numerics": false the emulator runs cost
// only (the same calls and cycles, no values: large shapes in seconds); with true the reply
// also carries the output's first values and sum. Trusted code: no candidate runs here.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "eager/library.h"
#include "emulator.h"

namespace evk::runner::ascendc::eager {
namespace {

using nlohmann::json;

std::optional<Plan> plan_for(const LibOp& op, std::string* why) {
  std::string w1, w2, w3;
  if (auto p = plan_matmul(op, &w1)) return p;
  if (auto p = plan_rows(op, &w2)) return p;
  if (auto p = plan_elementwise(op, &w3)) return p;
  // The most specific reason: the family that knows the op's name says what it lacks.
  for (const std::string* w : {&w1, &w2, &w3})
    if (w->rfind("no ", 0) != 0) {
      *why = *w;
      return std::nullopt;
    }
  *why = "no library kernel for " + op.op;
  return std::nullopt;
}

// Input i's element j: deterministic values in (-1, 1) (tests recompute them).
float input_value(size_t i, uint64_t j) {
  return static_cast<float>(std::sin(0.37 * static_cast<double>(j) + static_cast<double>(i)));
}

json run_one(const LibOp& op, bool numerics) {
  std::string why;
  auto plan = plan_for(op, &why);
  if (!plan) return {{"kernel", nullptr}, {"why", why}};
  Emulator& e = Emulator::get();
  e.reset();
  e.set_numerics(numerics);
  std::vector<uint64_t> in;
  for (size_t i = 0; i < op.in.size(); ++i) {
    uint64_t n = static_cast<uint64_t>(numel(op.in[i]));
    in.push_back(e.gm_alloc(std::max<uint64_t>(n, 1) * 4, "in." + std::to_string(i)));
    if (numerics) {
      std::vector<float> v(n);
      for (uint64_t j = 0; j < n; ++j) v[j] = input_value(i, j);
      e.gm_write(in.back(), v.data(), n * 4);
    }
  }
  uint64_t n_out = static_cast<uint64_t>(numel(op.out));
  uint64_t out = e.gm_alloc(std::max<uint64_t>(n_out, 1) * 4, "out");
  e.begin_call();
  plan->run(in, out);
  json r = {{"kernel", plan->kernel},
            {"cycles", e.call_cycles()},
            {"ms", e.call_ms()},
            {"launches", e.launches().size()}};
  if (numerics) {
    std::vector<float> v(n_out);
    e.gm_read(out, v.data(), n_out * 4);
    double sum = 0;
    for (float x : v) sum += x;
    r["sum"] = sum;
    r["head"] = std::vector<float>(v.begin(), v.begin() + std::min<uint64_t>(n_out, 16));
  }
  return r;
}

LibOp parse_op(const json& j) {
  LibOp op;
  op.op = j.at("op").get<std::string>();
  op.in = j.value("in", std::vector<std::vector<int64_t>>{});
  op.out = j.at("out").get<std::vector<int64_t>>();
  op.scalars = j.value("scalars", std::vector<double>{});
  return op;
}

}  // namespace
}  // namespace evk::runner::ascendc::eager

int main(int argc, char** argv) {
  using namespace evk::runner::ascendc;
  if (argc > 1) {
    std::fprintf(stderr,
                 "usage: evk-ascendc-eager < request.json\n"
                 "  runs each op of {\"numerics\": bool, \"ops\": [{\"op\", \"in\", \"out\", "
                 "\"scalars\"}]} as the reference library's Ascend C kernel on the emulated "
                 "910B and prints the modeled cost of each (JSON)\n");
    return std::string(argv[1]) == "--help" ? 0 : 2;
  }
  try {
    nlohmann::json req = nlohmann::json::parse(
        std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()));
    bool numerics = req.value("numerics", false);
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& j : req.at("ops")) {
      eager::LibOp op = eager::parse_op(j);
      Emulator::get().set_fail_handler([&op](const std::string&, const std::string& m) {
        std::fprintf(stderr, "evk-ascendc-eager: the library's kernel for %s failed: %s\n",
                     op.op.c_str(), m.c_str());
      });
      ops.push_back(eager::run_one(op, numerics));
    }
    Emulator::get().reset();
    std::printf("%s\n", nlohmann::json{{"ops", ops}}.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evk-ascendc-eager: bad request: %s\n", e.what());
    return 2;
  }
}
