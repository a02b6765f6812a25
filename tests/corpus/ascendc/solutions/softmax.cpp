// task: builtin:level1/softmax
// expect: feasible
// Row softmax: each block takes a contiguous range of rows; a row is copied in whole, reduced
// with ReduceMax and ReduceSum (the scalar GetValue waits for the vector unit), and written
// back. Rows move through double-buffered queues so the next row's copy overlaps this row.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct SoftmaxTiling {
  uint32_t rows, cols;  // any cols: a row whose bytes are not whole 32-byte blocks goes by DataCopyPad
  uint32_t rowsPerCore;
};

class KernelSoftmax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& t) {
    cols_ = t.cols;
    uint32_t first = t.rowsPerCore * GetBlockIdx();
    rows_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerCore ? t.rows - first : t.rowsPerCore);
    if (rows_ == 0) return;  // an offset past the tensor is out of bounds even if never copied
    xGm_.SetGlobalBuffer((__gm__ float*)x + first * cols_, rows_ * cols_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + first * cols_, rows_ * cols_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, cols_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, cols_ * sizeof(float));
    pipe_.InitBuffer(work_, cols_ * sizeof(float));
    pipe_.InitBuffer(red_, 32);
  }
  __aicore__ inline void Process() {
    for (uint32_t r = 0; r < rows_; ++r) {
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      if (cols_ % 8 == 0)
        DataCopy(x, xGm_[r * cols_], cols_);
      else  // the row's bytes; the UB block is padded up to 32 bytes (the pad is never read)
        DataCopyPad(x, xGm_[r * cols_], DataCopyExtParams(1, cols_ * sizeof(float), 0, 0, 0),
                    DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      LocalTensor<float> work = work_.Get<float>();
      LocalTensor<float> red = red_.Get<float>();
      ReduceMax(red, x, work, cols_);
      float mx = red.GetValue(0);
      Adds(y, x, -mx, cols_);
      Exp(y, y, cols_);
      ReduceSum(red, y, work, cols_);
      float sum = red.GetValue(0);
      Muls(y, y, 1.0f / sum, cols_);
      inQ_.FreeTensor(x);
      outQ_.EnQue(y);
      y = outQ_.DeQue<float>();
      if (cols_ % 8 == 0)
        DataCopy(yGm_[r * cols_], y, cols_);
      else  // only the row's bytes go back, so the next row in global memory is untouched
        DataCopyPad(yGm_[r * cols_], y, DataCopyExtParams(1, cols_ * sizeof(float), 0, 0, 0));
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ_;
  TBuf<TPosition::VECCALC> work_, red_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t rows_ = 0, cols_ = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, SoftmaxTiling t) {
  KernelSoftmax op;
  op.Init(x, y, t);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  SoftmaxTiling t;
  t.cols = static_cast<uint32_t>(in[0].shape[in[0].ndim - 1]);
  t.rows = static_cast<uint32_t>(evk_numel(&in[0]) / t.cols);
  if (t.rows == 0) return 0;
  // This template keeps a whole row in the UB (5 row buffers); longer rows need a tiled pass.
  if (t.cols > 8192) return 1;
  uint32_t blocks = t.rows < 24 ? t.rows : 24;
  t.rowsPerCore = (t.rows + blocks - 1) / blocks;
  blocks = (t.rows + t.rowsPerCore - 1) / t.rowsPerCore;  // every block has rows
  ACLRT_LAUNCH_KERNEL(softmax_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  return 0;
}
