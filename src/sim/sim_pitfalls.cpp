// The sim's cold-start pitfalls and the refining moves' own pitfalls, as a data table.
// A row applies only where the graph gives the mistake a place (features found by the
// generator). Its probability drops by kMarkerFactor when the prompt's memory or attempts carry
// `evk-pitfall: NAME`: that text is the only way memory helps the sim.
#include "sim/sim_internal.h"

namespace evk::sim {

const std::vector<PitfallRow>& pitfall_table() {
  using F = const Features&;
  static const std::vector<PitfallRow> rows = {
      // name, base probability, stage, the mistake, where it can happen
      {"missing_header", 0.12, "draft", "omits #include <vector> (or <cmath>): compile error",
       [](F f) { return f.uses_temps || f.uses_math; }},
      {"wrong_abi", 0.12, "draft",
       "declares evk_forward without const on `in`: conflicts with the ABI header's extern \"C\" declaration",
       [](F) { return true; }},
      {"missing_return", 0.07, "draft", "forgets `return 0;` at the end of evk_forward",
       [](F) { return true; }},
      {"off_by_one_write", 0.18, "draft",
       "the final write loop stops one element (or one column) short: the rest stays NaN",
       [](F f) { return f.final_copy; }},
      {"transposed_weight", 0.30, "draft",
       "indexes the weight / right-hand matrix transposed ([k][j] read as [j][k])",
       [](F f) { return f.has_product; }},
      {"no_init_reduction", 0.30, "draft",
       "accumulates straight into the NaN-poisoned output without initialising it",
       [](F f) { return f.accum_final; }},
      {"softmax_no_max_shift", 0.35, "draft",
       "exponentiates without subtracting the row maximum (overflows for large logits)",
       [](F f) { return f.has_softmax; }},
      {"int64_as_int32", 0.40, "draft", "reads or writes int64 tensors through int32_t pointers",
       [](F f) { return f.has_i64; }},
      {"broadcast_ignored", 0.30, "draft",
       "indexes a broadcast operand with the output's flat index (ignores broadcasting strides)",
       [](F f) { return f.has_broadcast; }},
      {"padding_ignored", 0.30, "draft",
       "drops the bounds check on padded borders (reads outside the input)",
       [](F f) { return f.has_padding; }},
      {"mean_wrong_count", 0.25, "draft", "divides a mean by the last dimension instead of the reduced count",
       [](F f) { return f.has_mean; }},
      {"parallel_reduction_race", 0.15, "draft",
       "parallelises a reduction loop over a shared accumulator (a data race with more than one thread)",
       [](F f) { return f.has_reduction; }},
      // CUDA cold-start mistakes (the CUDA generator sets Features::cuda; listed after the
      // CPU rows so that the CPU coder's draws are unchanged).
      {"cuda_host_deref", 0.15, "draft",
       "checks the input on the host through its device pointer (a segmentation fault)",
       [](F f) { return f.cuda; }},
      {"cuda_block_too_large", 0.12, "draft",
       "launches 2048 threads per block (the limit is 1024): the launch fails",
       [](F f) { return f.cuda; }},
      {"cuda_shared_overflow", 0.15, "draft",
       "stages a 64 KiB array in static shared memory (the limit is 48 KiB): ptxas refuses it",
       [](F f) { return f.cuda && (f.has_reduction || f.has_product); }},
      // Pitfalls of the refining moves.
      {"tile_tail", 0.35, "tile", "blocked loops skip the last partial tile (sizes not a multiple of the tile)",
       [](F f) { return f.tileable; }},
      {"reorder_no_init", 0.25, "reorder",
       "the reordered loop accumulates into the destination without clearing it first",
       [](F f) { return f.reorderable; }},
      {"fuse_broadcast", 0.30, "fuse", "the fused loop indexes a broadcast operand with the flat index",
       [](F f) { return f.has_broadcast; }},
      {"omp_collapse", 0.25, "omp",
       "adds collapse(3) to loop nests that are not three perfectly nested loops (compile error)",
       [](F) { return true; }},
      {"simd_no_reduction", 0.30, "simd",
       "`#pragma omp simd` on a reduction loop without a reduction clause",
       [](F f) { return f.has_reduction || f.has_product || f.has_softmax; }},
      // OpenCL cold-start mistakes (the OpenCL generator sets Features::opencl; last in the
      // table so that every other backend's draws are unchanged).
      {"ocl_global_not_rounded", 0.15, "draft",
       "launches exactly n work-items with a fixed work-group size: CL_INVALID_WORK_GROUP_SIZE "
       "when n is not a multiple of it (round the global size up and check bounds)",
       [](F f) { return f.opencl && f.final_copy; }},
      {"ocl_missing_barrier", 0.25, "draft",
       "drops the barrier between the steps of a __local tree reduction: work-items read "
       "partial sums not yet written",
       [](F f) { return f.opencl && f.has_reduction; }},
      {"ocl_arg_type_mismatch", 0.15, "draft",
       "passes a size as cl_int where the kernel parameter is `long`: clSetKernelArg fails "
       "with CL_INVALID_ARG_SIZE (-51)",
       [](F f) { return f.opencl; }},
      // Ascend C cold-start mistakes (the Ascend C generator sets Features::ascendc; after
      // every other backend's rows so that their draws are unchanged).
      {"ascendc_unaligned_copy", 0.35, "draft",
       "splits the elements over the blocks without rounding to 8 floats and copies with "
       "DataCopy: lengths not a multiple of 32 bytes ([UNALIGNED_COPY])",
       [](F f) { return f.ascendc && f.final_copy; }},
      {"ascendc_ub_overflow", 0.25, "draft",
       "96 KB tiles for the in, out and scratch buffers: 288 KB of the 192 KB Unified Buffer "
       "([UB_OVERFLOW])",
       [](F f) { return f.ascendc && f.final_copy; }},
      {"ascendc_missing_free", 0.25, "draft",
       "forgets FreeTensor of the input tile ([TENSOR_NOT_FREED] or [QUEUE_ALLOC_EXHAUSTED])",
       [](F f) { return f.ascendc && !f.has_product; }},
      {"ascendc_block_offset", 0.2, "draft",
       "offsets each block by (GetBlockIdx() + 1) blocks: the last one runs past the tensor "
       "([GM_OUT_OF_BOUNDS])",
       [](F f) { return f.ascendc && !f.has_product; }},
      {"ascendc_tail_dropped", 0.25, "draft",
       "the tile loop stops before a last partial tile: its outputs stay NaN",
       [](F f) { return f.ascendc && f.final_copy; }},
  };
  return rows;
}

}  // namespace evk::sim
