// The sim's refining moves, as a data table. One move is added per refine attempt on top of
// the start point's moves (read back from its `// evk-sim-moves:` line). A move's weight rises
// with the best-practice items in the prompt that name it (its name or a keyword), and with
// the start point's diagnosis when it names a bound or a fact the move addresses (a model
// shown "bound: serialised" double-buffers first).
#include "sim/sim_internal.h"

namespace evk::sim {

const std::vector<MoveRow>& move_table() {
  using F = const Features&;
  static const std::vector<MoveRow> rows = {
      // name, base weight, keywords in best practices, the change, where it applies
      {"fuse", 1.0, {"fuse", "fusion", "fused", "single pass", "one pass"},
       "computes chains of elementwise ops in one loop instead of one temporary per op",
       [](F f) { return f.ew_ops >= 1 && (f.ew_ops >= 2 || f.has_reduction || f.has_product); },
       {"bound: memory", "bound: launch"}},
      {"notemps", 1.0, {"temporar", "allocation", "in place", "write directly", "notemps"},
       "writes the last op straight into out[k]: no temporary and no final copy",
       [](F f) { return f.final_copy || f.uses_temps; },
       {"bound: memory"}},
      {"reorder", 1.0, {"reorder", "loop order", "loop interchange", "i-k-j", "ikj", "contiguous inner"},
       "reorders loop nests so the innermost loop runs over contiguous memory (i-k-j products, "
       "row-wise accumulation, packed weights)",
       [](F f) { return f.reorderable; },
       {"bound: memory"}},
      {"tile", 0.7, {"tile", "tiling", "block", "blocking", "cache"},
       "blocks product loops into cache-sized tiles",
       [](F f) { return f.tileable; },
       {"bound: memory", "bound: mte2", "bound: mte3"}},
      {"simd", 0.8, {"simd", "vectori", "avx", "__restrict", "restrict"},
       "adds `#pragma omp simd` (with reduction clauses) to innermost loops",
       [](F) { return true; },
       {"bound: compute", "bound: scalar"}},
      {"omp", 0.8, {"openmp", "parallel", "omp", "threads", "multithread"},
       "adds `#pragma omp parallel for` to the outermost loop of each nest",
       [](F) { return true; },
       {"bound: compute", "bound: imbalance", "AI Cores"}},
      {"double_buffer", 1.0, {"double buffer", "double-buffer", "ping-pong", "BUFFER_NUM", "overlap"},
       "gives the Ascend C queues two buffers so copies overlap compute",
       [](F f) { return f.ascendc; },
       {"bound: serialised", "one buffer"}},
  };
  return rows;
}

}  // namespace evk::sim
