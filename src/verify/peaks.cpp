#include "verify/peaks.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"
#include "verify/verdict_cache.h"

namespace evk {

double MachinePeaks::bandwidth_for(int64_t bytes) const {
  // Working sets up to 32 MiB may sit in some cache level: take the fastest measured rate (on
  // a busy machine the L1 and L2 figures swap places from run to run). Larger ones stream
  // from DRAM.
  if (bytes <= (32 << 20)) return std::max({l1_gbps, l2_gbps, gbps});
  return gbps;
}

MachinePeaks machine_peaks(Workspace& ws, int threads) {
  migrate_verify_schema(ws);
  nlohmann::json j;
  {
    auto s = ws.db().prepare("SELECT peaks FROM verify_peaks WHERE threads = ?");
    s.bind(1, threads);
    if (s.step()) j = nlohmann::json::parse(s.text(0), nullptr, false);
  }
  if (j.is_discarded() || !j.is_object()) {
    ProcessOptions o;
    o.timeout_s = 300;
    ProcessResult r = run_process(
        {runner_path().string(), "--measure-peaks", "--threads", std::to_string(threads)}, o);
    if (!r.ok())
      throw Error("measuring the machine's peaks failed: evk-runner " + r.describe() + ": " + r.err);
    j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
    auto s = ws.db().prepare("INSERT OR REPLACE INTO verify_peaks (threads, peaks) VALUES (?, ?)");
    s.bind(1, threads).bind(2, j.dump()).run();
  }
  MachinePeaks p;
  p.gbps = j.value("gbps", 0.0);
  p.l2_gbps = j.value("l2_gbps", 0.0);
  p.l1_gbps = j.value("l1_gbps", 0.0);
  p.gflops = j.value("gflops", 0.0);
  p.threads = threads;
  return p;
}

}  // namespace evk
