// `evokernel report`: one self-contained HTML page about one or more runs (no scripts, no
// external CSS, fonts or images; charts are inline SVG from svg.h). It answers, summary first:
// how many tasks were solved, by which method, how fast, and which memories mattered.
//
// Invariants relied upon: every text that comes from a run (task names, code, feedback, memory
// titles, model names) is HTML-escaped; a simulated run is labelled SIMULATED in the header, in
// a banner, and wherever its name appears (tables, chart legends).
#pragma once
#include <string>
#include <vector>

#include "report/run_data.h"

namespace evk {

struct ReportOptions {
  std::string generated;  // timestamp shown in the header (empty: now, UTC)
  size_t top_items = 8;   // memory items per stage in the tables
  size_t trajectories = 5;  // items per stage in the Q trajectory chart
};

// runs[0] is the run reported on; the others are compared with it.
std::string render_report(const std::vector<RunData>& runs, const ReportOptions& opt = {});

}  // namespace evk
