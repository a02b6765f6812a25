// A task: one KernelBench-format Python file (class Model, get_inputs, get_init_inputs).
// Its id is the file stem. TaskInfo is what describing it costs nothing to learn; Reference
// is what the oracle computed for one seed.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace evk {

struct TaskInfo {
  std::string id;
  std::filesystem::path path;
  int level = 0;            // suite manifest, else the folder name (level1 -> 1), else 0
  std::string doc;          // first docstring line
  std::string source;       // the Python text
  std::string content_hash;
  bool ok = false;          // false: the task is broken, see error
  std::string error;
  int64_t input_elements = 0;
  // After fitting: inputs + parameters + buffers, and the FLOPs of one forward (the oracle's
  // count of torch calls on the meta device); within_bounds false where no size constant could
  // shrink further.
  int64_t elements = 0, flops = 0;
  bool within_bounds = true;
  std::map<std::string, int64_t> constants;
  std::map<std::string, std::pair<int64_t, int64_t>> fitted;  // name -> (from, to)
};

// One tensor of the ABI, in order: inputs, then parameters and buffers, then outputs.
struct TensorSpec {
  std::string name;  // "in.0", "param.fc.weight", "out.0"
  std::string role;  // "input", "param", "output"
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  bool scalar = false;  // a non-tensor input passed as a 0-d tensor
};

struct Reference {
  std::filesystem::path tensors_path;  // ref.safetensors
  std::filesystem::path meta_path;     // meta.json
  nlohmann::json meta;                 // the oracle's metadata
  std::vector<TensorSpec> abi;         // inputs and params, in ABI order
  std::vector<TensorSpec> outputs;
  double eager_ms = 0;                 // PyTorch eager float32 median
  double atol = -1, rtol = -1;         // task overrides (ATOL/RTOL constants), -1: default
  int64_t flops = 0, bytes = 0;
};

}  // namespace evk
