// Charts as inline SVG text, written by our own code so that a report is one self-contained
// file (no scripts, no fonts, no network). Each function returns one <svg> element sized by
// its viewBox, so it scales with the page; fonts are inherited from the page's CSS.
//
// Invariants relied upon: every label passes through html_escape; an empty chart (no points,
// no values) still renders axes and a "no data" note instead of failing, because a run may
// have no feasible kernel at all.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace evk::svg {

// The colour of series i (a palette readable on white and for common colour blindness).
const std::string& color(size_t i);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in the given order
  std::string color;                             // empty: palette by position
  bool step = false;                             // hold y until the next x (value after an update)
  bool markers = false;                          // a dot on every point
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<Series> series;
  bool y_percent = false;  // y in [0,1] shown as percent
  // Axis ranges; a max below its min means "from the data" (the min is then ignored too).
  double x_min = 0, x_max = -1, y_min = 0, y_max = -1;
  int width = 640, height = 300;
};
std::string line_chart(const LineChart& c);

// Grouped vertical bars: one group per category, one bar per series in each group.
struct BarChart {
  std::string title, x_label, y_label;
  std::vector<std::string> categories;
  std::vector<std::pair<std::string, std::vector<double>>> series;  // name, value per category
  bool y_percent = false;
  bool integer_y = false;     // counts: integer ticks
  bool value_labels = true;   // the value above each bar
  int width = 640, height = 300;
};
std::string bar_chart(const BarChart& c);

// Counts of samples in bins [edges[i], edges[i+1]); values below the first edge fall in the
// first bin and values at or above the last edge in the last, labelled open-ended ("<a",
// ">=b"). Labels use `unit` as a suffix (e.g. "x" for speed-ups). Returns the bar chart.
struct Histogram {
  std::string title, x_label, y_label = "tasks";
  std::vector<double> edges;  // at least 2, increasing
  std::string unit;
  std::vector<std::pair<std::string, std::vector<double>>> samples;  // name, values
  int width = 640, height = 300;
};
std::vector<int> bin_counts(const std::vector<double>& values, const std::vector<double>& edges);
std::string histogram(const Histogram& h);

// A tiny line without axes for a table cell (e.g. a Q-value trajectory); a dashed zero line
// is drawn when the range spans 0.
std::string sparkline(const std::vector<double>& ys, int width = 120, int height = 24,
                      const std::string& color = "");

// "Nice" tick values (1, 2, 2.5, 5 x 10^k steps) covering [lo, hi], about n of them.
std::vector<double> nice_ticks(double lo, double hi, int n = 5);

}  // namespace evk::svg
