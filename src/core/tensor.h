// Dense host tensors and the safetensors file format (own implementation, validated on read).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace evk {

// Codes are the ABI's (abi/evokernel/kernel_abi.h, EVK_F32...): keep them in sync.
enum class DType : int32_t { F32 = 0, F64 = 1, I32 = 2, I64 = 3, BOOL = 4, U8 = 5, F16 = 6 };

size_t dtype_size(DType t);
std::string dtype_name(DType t);           // safetensors spelling: "F32", "I64", ...
DType dtype_from_name(const std::string& s);  // throws Error for unknown names

struct Tensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // row-major, contiguous

  int64_t numel() const;
  size_t nbytes() const { return data.size(); }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(data.data());
  }
  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
  // Element i converted to double, whatever the dtype.
  double at(int64_t i) const;
};

std::string shape_str(const std::vector<int64_t>& shape);  // "[4, 32]"

struct SafetensorsFile {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

// Throws Error naming the file and the defect for anything malformed: short file, header
// larger than the file, bad JSON, unknown dtype, offsets out of range, size not matching the
// shape, overlapping tensors.
SafetensorsFile read_safetensors(const std::filesystem::path& path);
SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& name);
void write_safetensors(const std::filesystem::path& path, const SafetensorsFile& f);

}  // namespace evk
