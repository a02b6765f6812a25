/* The host side of a CANN operator project (the op_host sources) on the emulated device: the graph
 * types (ge::DataType, ge::graphStatus), the tiling context a tiling function reads the
 * shapes, dtypes and attributes from and writes blockDim, the tiling key, the raw tiling data
 * and the workspace sizes to (gert::TilingContext), the shape inference contexts, and the
 * operator definition (ops::OpDef, OP_ADD), which compiles as in CANN and records nothing:
 * the task fixes the inputs, outputs and dtypes.
 *
 * evk_forward runs such an operator as CANN's launch would (evokernel/cann_op.h):
 *   extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out,
 *                              int32_t n_out) {
 *     return EVK_RUN_CANN_OP(optiling::TilingFunc, add_custom, in, n_in, out, n_out);
 *   }
 * builds the context from the tensors, calls the tiling function, puts the raw tiling data and
 * a workspace of the requested size in device memory and launches
 * add_custom(inputs..., outputs..., workspace, tiling) on blockDim blocks. */
#ifndef EVOKERNEL_REGISTER_OP_DEF_REGISTRY_H_
#define EVOKERNEL_REGISTER_OP_DEF_REGISTRY_H_
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace ge {
enum DataType {
  DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6,
  DT_UINT16 = 7, DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12,
  DT_BF16 = 27, DT_UNDEFINED = 28
};
enum Format { FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3,
              FORMAT_FRACTAL_Z = 4, FORMAT_FRACTAL_NZ = 29 };
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
}  // namespace ge

namespace gert {

class Shape {
 public:
  Shape() {}
  size_t GetDimNum() const { return n_; }
  int64_t GetDim(size_t i) const { return i < n_ ? d_[i] : 0; }
  void SetDimNum(size_t n) { n_ = n < 8 ? n : 8; }
  void SetDim(size_t i, int64_t v) { if (i < 8) d_[i] = v; }
  void AppendDim(int64_t v) { if (n_ < 8) d_[n_++] = v; }
  int64_t GetShapeSize() const {
    int64_t s = 1;
    for (size_t i = 0; i < n_; ++i) s *= d_[i];
    return s;
  }
  int64_t operator[](size_t i) const { return GetDim(i); }
  bool operator==(const Shape& o) const {
    if (n_ != o.n_) return false;
    for (size_t i = 0; i < n_; ++i) if (d_[i] != o.d_[i]) return false;
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  size_t n_ = 0;
  int64_t d_[8] = {};
};

class StorageShape {
 public:
  const Shape& GetOriginShape() const { return shape_; }
  const Shape& GetStorageShape() const { return shape_; }
  Shape& MutableOriginShape() { return shape_; }
  Shape& MutableStorageShape() { return shape_; }
  Shape shape_;
};

class CompileTimeTensorDesc {
 public:
  ge::DataType GetDataType() const { return dtype_; }
  ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
  ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
  ge::DataType dtype_ = ge::DT_FLOAT;
};

class Tensor {
 public:
  int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
  const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
  const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
  ge::DataType GetDataType() const { return dtype_; }
  StorageShape shape_;
  ge::DataType dtype_ = ge::DT_FLOAT;
};

// The operator's attributes, in the order OpDef declared them (evk: in the order given to
// EVK_RUN_CANN_OP; every attribute is held as a double and converted on reading).
class RuntimeAttrs {
 public:
  template <class T>
  const T* GetAttrPointer(size_t i) const {
    if (i >= values_.size()) return nullptr;
    if (i >= 16 || sizeof(T) > 8) return nullptr;
    T v = static_cast<T>(values_[i]);
    memcpy(storage_[i], &v, sizeof v);
    return reinterpret_cast<const T*>(storage_[i]);
  }
  const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
  const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
  const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
  size_t GetAttrNum() const { return values_.size(); }
  std::vector<double> values_;
  alignas(8) mutable unsigned char storage_[16][8] = {};
};

class TilingData {
 public:
  void* GetData() { return data_; }
  size_t GetCapacity() const { return sizeof data_; }
  void SetDataSize(size_t n) { size_ = n; }
  size_t GetDataSize() const { return size_; }
  template <class T>
  void Append(const T& v) {
    if (size_ + sizeof v <= sizeof data_) memcpy(data_ + size_, &v, sizeof v), size_ += sizeof v;
  }

 private:
  alignas(8) unsigned char data_[64 * 1024] = {};
  size_t size_ = 0;
};

class TilingContext {
 public:
  const StorageShape* GetInputShape(size_t i) const { return i < in_.size() ? &in_[i].shape_ : nullptr; }
  const StorageShape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
  const StorageShape* GetOutputShape(size_t i) const {
    return i < out_.size() ? &out_[i].shape_ : nullptr;
  }
  const Tensor* GetInputTensor(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
  const Tensor* GetOptionalInputTensor(size_t i) const { return GetInputTensor(i); }
  const CompileTimeTensorDesc* GetInputDesc(size_t i) const {
    return i < in_desc_.size() ? &in_desc_[i] : nullptr;
  }
  const CompileTimeTensorDesc* GetOptionalInputDesc(size_t i) const { return GetInputDesc(i); }
  const CompileTimeTensorDesc* GetOutputDesc(size_t i) const {
    return i < out_desc_.size() ? &out_desc_[i] : nullptr;
  }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  size_t GetComputeNodeInputNum() const { return in_.size(); }
  size_t GetComputeNodeOutputNum() const { return out_.size(); }
  const char* GetNodeName() const { return "evk_op"; }
  const char* GetNodeType() const { return "evk_op"; }
  ge::graphStatus SetBlockDim(uint32_t d) { block_dim_ = d; return ge::GRAPH_SUCCESS; }
  uint32_t GetBlockDim() const { return block_dim_; }
  ge::graphStatus SetTilingKey(uint64_t k) { key_ = k; return ge::GRAPH_SUCCESS; }
  uint64_t GetTilingKey() const { return key_; }
  ge::graphStatus SetScheduleMode(uint32_t) { return ge::GRAPH_SUCCESS; }
  TilingData* GetRawTilingData() { return &raw_; }
  size_t* GetWorkspaceSizes(size_t n) { return n <= 8 ? workspace_ : nullptr; }
  size_t GetWorkspaceNum() const { return 1; }
  const fe::PlatFormInfos* GetPlatformInfo() const { return &platform_; }

  std::vector<Tensor> in_, out_;
  std::vector<CompileTimeTensorDesc> in_desc_, out_desc_;
  RuntimeAttrs attrs_;
  uint32_t block_dim_ = 0;
  uint64_t key_ = 0;
  TilingData raw_;
  size_t workspace_[8] = {};
  fe::PlatFormInfos platform_;
};

class InferShapeContext {
 public:
  const Shape* GetInputShape(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
  const Shape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
  Shape* GetOutputShape(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  std::vector<Shape> in_, out_;
  RuntimeAttrs attrs_;
};

class InferDataTypeContext {
 public:
  ge::DataType GetInputDataType(size_t i) const { return i < in_.size() ? in_[i] : ge::DT_UNDEFINED; }
  ge::graphStatus SetOutputDataType(size_t i, ge::DataType t) {
    if (i >= out_.size()) out_.resize(i + 1);
    out_[i] = t;
    return ge::GRAPH_SUCCESS;
  }
  std::vector<ge::DataType> in_, out_;
};

}  // namespace gert

namespace ops {

enum Option { OPTIONAL, REQUIRED, DYNAMIC };

// The operator definition compiles as in CANN and records nothing.
class OpParamDef {
 public:
  OpParamDef& ParamType(Option) { return *this; }
  OpParamDef& DataType(const std::vector<ge::DataType>&) { return *this; }
  OpParamDef& DataTypeList(const std::vector<ge::DataType>&) { return *this; }
  OpParamDef& Format(const std::vector<ge::Format>&) { return *this; }
  OpParamDef& FormatList(const std::vector<ge::Format>&) { return *this; }
  OpParamDef& UnknownShapeFormat(const std::vector<ge::Format>&) { return *this; }
  OpParamDef& AutoContiguous() { return *this; }
  OpParamDef& IgnoreContiguous() { return *this; }
  OpParamDef& Scalar() { return *this; }
  OpParamDef& ScalarList() { return *this; }
  OpParamDef& ValueDepend(Option) { return *this; }
  OpParamDef& InitValue(uint64_t) { return *this; }
};

class OpAttrDef {
 public:
  OpAttrDef& AttrType(Option) { return *this; }
  OpAttrDef& Float(float) { return *this; }
  OpAttrDef& Int(int64_t) { return *this; }
  OpAttrDef& Bool(bool) { return *this; }
  OpAttrDef& String(const char*) { return *this; }
  OpAttrDef& ListInt(const std::vector<int64_t>&) { return *this; }
  OpAttrDef& ListFloat(const std::vector<float>&) { return *this; }
};

class OpAICoreConfig {
 public:
  OpParamDef& Input(const char*) { return param_; }
  OpParamDef& Output(const char*) { return param_; }
  OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
  OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
  OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
  OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
  OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
  OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }

 private:
  OpParamDef param_;
};

class OpAICoreDef {
 public:
  template <class F>
  OpAICoreDef& SetTiling(F) { return *this; }
  template <class F>
  OpAICoreDef& SetCheckSupport(F) { return *this; }
  template <class F>
  OpAICoreDef& SetOpSelectFormat(F) { return *this; }
  OpAICoreDef& AddConfig(const char*) { return *this; }
  OpAICoreDef& AddConfig(const char*, OpAICoreConfig&) { return *this; }
};

class OpDef {
 public:
  explicit OpDef(const char*) {}
  OpParamDef& Input(const char*) { return param_; }
  OpParamDef& Output(const char*) { return param_; }
  OpAttrDef& Attr(const char*) { return attr_; }
  template <class F>
  OpDef& SetInferShape(F) { return *this; }
  template <class F>
  OpDef& SetInferShapeRange(F) { return *this; }
  template <class F>
  OpDef& SetInferDataType(F) { return *this; }
  OpAICoreDef& AICore() { return aicore_; }

 private:
  OpParamDef param_;
  OpAttrDef attr_;
  OpAICoreDef aicore_;
};

}  // namespace ops

#define OP_ADD(op_name) using EvkOpAdd_##op_name = op_name

#include "evokernel/cann_op.h"

#endif /* EVOKERNEL_REGISTER_OP_DEF_REGISTRY_H_ */
