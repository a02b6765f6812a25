#include "cli/baseline_check.h"

#include "core/workspace.h"
#include "verify/peaks.h"

namespace evk::cli {

BaselineCheck check_baseline(Workspace& ws, const OracleOptions& opt, bool fresh) {
  BaselineCheck c;
  c.baseline = eager_baseline(ws, opt, fresh);
  c.fma_gflops = machine_peaks(ws, opt.threads).gflops;
  c.health = baseline_health(c.baseline, c.fma_gflops);
  return c;
}

}  // namespace evk::cli
