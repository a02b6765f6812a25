// The reference kernel library behind the Ascend C eager baseline (evk-ascendc-eager): the
// straightforward Ascend C kernels a vendor library runs for one PyTorch operator each, written
// against the same kernel_operator.h as a candidate and run on the same emulator. Trusted code:
// built into the binary, never a candidate's.
//
// The library's generic tiling, the same for every task: a kernel's elements (or rows) are
// split evenly over as many vector cores as whole tiles need, at most 48; each core walks its
// share in fixed UB tiles of kTileElems elements with double-buffered in and out queues; every
// operator is its own launch and reads and writes global memory (no fusion). Matmul is the
// high-level Matmul API with MultiCoreMatmulTiling over the 24 cube cores.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace evk::runner::ascendc::eager {

// One fx operator as the parent describes it: the op's name (fx `op`, lower case: "relu",
// "add", "linear", "layernorm"...), the shapes of its tensor operands in argument order (a
// module's parameters after them), its output's shape, and the numbers among its arguments.
struct LibOp {
  std::string op;
  std::vector<std::vector<int64_t>> in;
  std::vector<int64_t> out;
  std::vector<double> scalars;
};

// The library's kernel for an op: its name and the host code that tiles and launches it on
// device tensors (addresses in emulated global memory, float32, dense row-major).
struct Plan {
  std::string kernel;
  std::function<void(const std::vector<uint64_t>& in, uint64_t out)> run;
};

inline constexpr uint32_t kTileElems = 8192;  // one UB tile of the library: 32 KiB of float
inline constexpr uint32_t kLibCores = 48;     // vector cores

// Each returns the plan when its family covers the op, else nullopt and, in `why`, what is
// missing (the parent costs such an op by its roofline and says so).
std::optional<Plan> plan_elementwise(const LibOp& op, std::string* why);
std::optional<Plan> plan_rows(const LibOp& op, std::string* why);
std::optional<Plan> plan_matmul(const LibOp& op, std::string* why);

int64_t numel(const std::vector<int64_t>& shape);

}  // namespace evk::runner::ascendc::eager
