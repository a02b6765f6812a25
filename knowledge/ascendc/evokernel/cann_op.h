/* evokernel's launch glue for a CANN operator (register/op_def_registry.h): what CANN's
 * generated launch code does between the framework and the kernel. From the task's tensors it
 * builds the tiling context (shapes, dtypes, the attributes given), runs the host tiling
 * function, copies the raw tiling data into device memory, allocates the workspace the tiling
 * function asked for (GetWorkspaceSizes(1)[0], system workspace included), and launches
 * kernel(inputs..., outputs..., workspace, tiling) on the blockDim the tiling function set,
 * with its tiling key visible to TILING_KEY_IS. Returns 0, or: 1 the tiling function failed,
 * 2 the kernel's GM_ADDR parameters are not inputs + outputs + 2, 3 blockDim was not set. */
#ifndef EVOKERNEL_CANN_OP_H_
#define EVOKERNEL_CANN_OP_H_
#include <initializer_list>
#include <memory>
#include <utility>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "register/op_def_registry.h"

namespace evk_cann {

inline ge::DataType ge_dtype(int32_t d) {
  switch (d) {
    case EVK_F16: return ge::DT_FLOAT16;
    case EVK_I32: return ge::DT_INT32;
    case EVK_I64: return ge::DT_INT64;
    case EVK_U8: return ge::DT_UINT8;
    case EVK_BOOL: return ge::DT_BOOL;
    case EVK_F64: return ge::DT_DOUBLE;
    default: return ge::DT_FLOAT;
  }
}

inline void describe(const evk_tensor& t, gert::Tensor& g, gert::CompileTimeTensorDesc& d) {
  gert::Shape& s = g.shape_.MutableStorageShape();
  for (int32_t i = 0; i < t.ndim; ++i) s.AppendDim(t.shape[i]);
  g.dtype_ = d.dtype_ = ge_dtype(t.dtype);
}

template <class... P, size_t... I>
void launch(void (*kernel)(P...), const char* name, uint32_t dim, GM_ADDR* args,
            std::index_sequence<I...>) {
  evk_acl_launch_begin(dim, name);
  while (evk_acl_next_block() >= 0) kernel(args[I]...);
  evk_acl_launch_end();
}

template <class... P>
int Run(ge::graphStatus (*tiling)(gert::TilingContext*), void (*kernel)(P...), const char* name,
        const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out,
        std::initializer_list<double> attrs = {}) {
  if (static_cast<int32_t>(sizeof...(P)) != n_in + n_out + 2) return 2;
  auto ctx = std::make_unique<gert::TilingContext>();
  ctx->in_.resize(n_in);
  ctx->in_desc_.resize(n_in);
  ctx->out_.resize(n_out);
  ctx->out_desc_.resize(n_out);
  for (int32_t i = 0; i < n_in; ++i) describe(in[i], ctx->in_[i], ctx->in_desc_[i]);
  for (int32_t i = 0; i < n_out; ++i) describe(out[i], ctx->out_[i], ctx->out_desc_[i]);
  ctx->attrs_.values_.assign(attrs.begin(), attrs.end());
  if (tiling(ctx.get()) != ge::GRAPH_SUCCESS) return 1;
  if (ctx->block_dim_ == 0) return 3;
  size_t bytes = ctx->raw_.GetDataSize();
  void* dev_tiling = nullptr;
  aclrtMalloc(&dev_tiling, bytes > 0 ? bytes : 8, ACL_MEM_MALLOC_HUGE_FIRST);
  if (bytes > 0)
    aclrtMemcpy(dev_tiling, bytes, ctx->raw_.GetData(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  void* workspace = nullptr;
  if (ctx->workspace_[0] > 0) aclrtMalloc(&workspace, ctx->workspace_[0], ACL_MEM_MALLOC_HUGE_FIRST);
  GM_ADDR args[sizeof...(P)];
  int32_t k = 0;
  for (int32_t i = 0; i < n_in; ++i) args[k++] = static_cast<GM_ADDR>(in[i].data);
  for (int32_t i = 0; i < n_out; ++i) args[k++] = static_cast<GM_ADDR>(out[i].data);
  args[k++] = static_cast<GM_ADDR>(workspace);
  args[k++] = static_cast<GM_ADDR>(dev_tiling);
  AscendC::evk_detail::TilingKeyRef() = ctx->key_;
  launch(kernel, name, ctx->block_dim_, args, std::index_sequence_for<P...>{});
  aclrtFree(dev_tiling);
  if (workspace) aclrtFree(workspace);
  return 0;
}

}  // namespace evk_cann

/* EVK_RUN_CANN_OP(TilingFunc, kernel, in, n_in, out, n_out[, {attr, ...}]) */
#define EVK_RUN_CANN_OP(tiling_fn, kernel, in, n_in, out, n_out, ...) \
  ::evk_cann::Run(tiling_fn, &kernel, #kernel, in, n_in, out, n_out, ##__VA_ARGS__)

#endif /* EVOKERNEL_CANN_OP_H_ */
