/* The CANN tiling-data macros (host side): a tiling struct declared once, filled by the host
 * tiling function with set_<field>(), serialised with SaveToBuffer into the raw tiling data
 * that reaches the kernel through GM, and read there with GET_TILING_DATA(var, tiling)
 * (kernel_operator.h). Here one class serves both sides: plain fields in declaration order
 * (the kernel reads `var.field`) plus CANN's accessors.
 *
 *   namespace optiling {
 *   BEGIN_TILING_DATA_DEF(AddTilingData)
 *     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
 *     TILING_DATA_FIELD_DEF_ARR(uint32_t, 4, shape);
 *     TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTiling);
 *   END_TILING_DATA_DEF;
 *   REGISTER_TILING_DATA_CLASS(AddCustom, AddTilingData)
 *   }
 *
 * A file registers one tiling class: GET_TILING_DATA reads the registered one. */
#ifndef EVOKERNEL_REGISTER_TILINGDATA_BASE_H_
#define EVOKERNEL_REGISTER_TILINGDATA_BASE_H_
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "evokernel/cube_tiling.h"

#define BEGIN_TILING_DATA_DEF(class_name) \
  class class_name {                      \
   public:

#define TILING_DATA_FIELD_DEF(data_type, field_name)                     \
  void set_##field_name(data_type v) { field_name = v; }                 \
  data_type get_##field_name() const { return field_name; }              \
  data_type field_name = data_type()

#define TILING_DATA_FIELD_DEF_ARR(data_type, arr_size, field_name)                         \
  void set_##field_name(const data_type* v) { memcpy(field_name, v, sizeof field_name); }  \
  data_type* get_##field_name() { return field_name; }                                     \
  data_type field_name[arr_size] = {}

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name

#define END_TILING_DATA_DEF                                                          \
  void SaveToBuffer(void* buf, size_t cap) const {                                   \
    memcpy(buf, this, sizeof(*this) < cap ? sizeof(*this) : cap);                    \
  }                                                                                  \
  size_t GetDataSize() const { return sizeof(*this); }                               \
  }

// Also the kernel's view: GET_TILING_DATA(var, tiling) declares `EvkRegisteredTilingData var`.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
  using EvkRegisteredTilingData = class_name;
// The plain-struct style (a C++ struct shared by host and kernel, no macros).
#define REGISTER_TILING_DEFAULT(struct_type) using EvkRegisteredTilingData = struct_type;

namespace optiling {}

#endif /* EVOKERNEL_REGISTER_TILINGDATA_BASE_H_ */
