// The eager baseline's health against this machine's FMA peak (tasks/baseline.h,
// verify/peaks.h): what `doctor` reports and what `run` requires before its first attempt.
#pragma once
#include "tasks/baseline.h"

namespace evk {
class Workspace;
}

namespace evk::cli {

struct BaselineCheck {
  EagerBaseline baseline;
  BaselineHealth health;
  double fma_gflops = 0;  // the machine's FMA peak at the baseline's thread count
};

// The cached baseline (probed when the system changed, or always with `fresh`) and the stored
// peaks (measured once per workspace and thread count).
BaselineCheck check_baseline(Workspace& ws, const OracleOptions& opt, bool fresh);

}  // namespace evk::cli
