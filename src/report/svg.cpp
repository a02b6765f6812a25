#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html.h"

namespace evk::svg {
namespace {

constexpr double kCharW = 6.6;  // average advance of a 12px sans-serif glyph, for layout only
constexpr int kFont = 12;

std::string num(double v) {  // coordinates: short and locale-free
  if (std::fabs(v) < 5e-4) return "0";
  return fmt::format("{:.1f}", v);
}

std::string tick_label(double v, bool percent) {
  if (percent) return fmt::format("{:.0f}%", 100 * v);
  double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1000) return fmt_count(v);
  if (std::fabs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
  if (a >= 1) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2g}", v);
}

std::string truncate(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 1) + "\u2026";
}

// The frame shared by both chart kinds: title, legend rows, plot area, axis labels.
struct Frame {
  int width, height;
  double left = 58, right = 18, top = 34, bottom = 44;
  double plot_w() const { return width - left - right; }
  double plot_h() const { return height - top - bottom; }
};

// Legend entries laid out in rows across the width; returns the SVG and grows f.top.
std::string legend(Frame& f, const std::vector<std::pair<std::string, std::string>>& entries) {
  if (entries.size() < 2) return "";
  std::string out;
  double x = f.left, y = f.top + 2;
  for (const auto& [name, col] : entries) {
    std::string label = truncate(name, 48);
    double w = 22 + kCharW * static_cast<double>(label.size()) + 14;
    if (x + w > f.width - f.right && x > f.left) {
      x = f.left;
      y += 18;
    }
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" rx=\"2\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\" class=\"lg\">{}</text>",
        num(x), num(y), col, num(x + 19), num(y + 9.5), html_escape(label));
    x += w;
  }
  f.top = y + 24;
  return out;
}

std::string open_svg(const Frame& f, const std::string& title, const std::string& cls) {
  return fmt::format(
      "<svg class=\"chart {}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "font-size=\"{}\"><text x=\"{}\" y=\"20\" class=\"ttl\">{}</text>",
      cls, f.width, f.height, html_escape(title), kFont, num(f.left), html_escape(title));
}

std::string axis_labels(const Frame& f, const std::string& x_label, const std::string& y_label) {
  std::string out;
  if (!x_label.empty())
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axl\" text-anchor=\"middle\">{}</text>",
                       num(f.left + f.plot_w() / 2), num(f.height - 8), html_escape(x_label));
  if (!y_label.empty()) {
    double cy = f.top + f.plot_h() / 2;
    out += fmt::format(
        "<text x=\"14\" y=\"{}\" class=\"axl\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 14 {})\">{}</text>",
        num(cy), num(cy), html_escape(y_label));
  }
  return out;
}

// Horizontal grid lines and y tick labels for [lo, hi].
std::string y_axis(const Frame& f, const std::vector<double>& ticks, double lo, double hi,
                   bool percent) {
  std::string out;
  for (double t : ticks) {
    double y = f.top + f.plot_h() * (1 - (t - lo) / (hi - lo));
    out += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" class=\"grid\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"tk\">{}</text>",
        num(f.left), num(f.left + f.plot_w()), num(y), num(y), num(f.left - 6), num(y + 4),
        tick_label(t, percent));
  }
  out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" class=\"axis\"/>", num(f.left),
                     num(f.left + f.plot_w()), num(f.top + f.plot_h()), num(f.top + f.plot_h()));
  return out;
}

std::string no_data(const Frame& f) {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"nodata\">no data</text>",
                     num(f.left + f.plot_w() / 2), num(f.top + f.plot_h() / 2));
}

}  // namespace

const std::string& color(size_t i) {
  static const std::vector<std::string> kPalette = {"#2563eb", "#ea580c", "#16a34a", "#9333ea",
                                                    "#dc2626", "#0891b2", "#ca8a04", "#db2777"};
  return kPalette[i % kPalette.size()];
}

std::vector<double> nice_ticks(double lo, double hi, int n) {
  if (!(hi > lo)) hi = lo + 1;
  double raw = (hi - lo) / std::max(n, 1);
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step)
    out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

std::string line_chart(const LineChart& c) {
  Frame f{c.width, c.height};
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < c.series.size(); ++i)
    entries.push_back({c.series[i].name, c.series[i].color.empty() ? color(i) : c.series[i].color});
  std::string leg = legend(f, entries);
  double inf = std::numeric_limits<double>::infinity();
  double x0 = inf, x1 = -inf, y0 = inf, y1 = -inf;
  for (const auto& s : c.series)
    for (const auto& [x, y] : s.points) {
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  bool empty = !(x1 >= x0);
  if (c.x_max >= c.x_min) x0 = c.x_min, x1 = c.x_max;
  if (c.y_max >= c.y_min) y0 = c.y_min, y1 = c.y_max;
  if (empty && !(c.x_max >= c.x_min)) x0 = 0, x1 = 1;
  if (empty && !(c.y_max >= c.y_min)) y0 = 0, y1 = 1;
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y0 -= 0.5, y1 += 0.5;
  auto yt = nice_ticks(y0, y1, 5);
  y0 = std::min(y0, yt.front()), y1 = std::max(y1, yt.back());
  auto px = [&](double x) { return f.left + f.plot_w() * (x - x0) / (x1 - x0); };
  auto py = [&](double y) { return f.top + f.plot_h() * (1 - (y - y0) / (y1 - y0)); };

  std::string out = open_svg(f, c.title, "line") + leg;
  out += y_axis(f, yt, y0, y1, c.y_percent);
  for (double t : nice_ticks(x0, x1, 8)) {
    if (t < x0 - 1e-9 || t > x1 + 1e-9) continue;
    out += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>"
                       "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\" class=\"tk\">{4}</text>",
                       num(px(t)), num(f.top + f.plot_h()), num(f.top + f.plot_h() + 4),
                       num(f.top + f.plot_h() + 17), tick_label(t, false));
  }
  if (y0 < 0 && y1 > 0)
    out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" class=\"zero\"/>", num(f.left),
                       num(f.left + f.plot_w()), num(py(0)), num(py(0)));
  for (size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const std::string& col = entries[i].second;
    std::string d;
    for (size_t k = 0; k < s.points.size(); ++k) {
      auto [x, y] = s.points[k];
      if (k == 0)
        d += fmt::format("M{} {}", num(px(x)), num(py(y)));
      else if (s.step)
        d += fmt::format(" H{} V{}", num(px(x)), num(py(y)));
      else
        d += fmt::format(" L{} {}", num(px(x)), num(py(y)));
    }
    if (!d.empty())
      out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                         "stroke-linejoin=\"round\"><title>{}</title></path>",
                         d, col, html_escape(s.name));
    if (s.markers)
      for (auto [x, y] : s.points)
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"/>", num(px(x)),
                           num(py(y)), col);
  }
  if (empty) out += no_data(f);
  out += axis_labels(f, c.x_label, c.y_label);
  return out + "</svg>";
}

std::string bar_chart(const BarChart& c) {
  Frame f{c.width, c.height};
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < c.series.size(); ++i) entries.push_back({c.series[i].first, color(i)});
  std::string leg = legend(f, entries);
  size_t ncat = std::max<size_t>(c.categories.size(), 1);
  double group_w = f.plot_w() / static_cast<double>(ncat);
  size_t longest = 0;
  for (const auto& cat : c.categories) longest = std::max(longest, cat.size());
  bool rotate = kCharW * static_cast<double>(longest) > group_w - 4;
  if (rotate) f.bottom += std::min(60.0, kCharW * static_cast<double>(longest) * 0.55);

  double top_v = 0;
  for (const auto& [name, vals] : c.series)
    for (double v : vals) top_v = std::max(top_v, v);
  bool empty = top_v <= 0;
  if (empty) top_v = 1;
  if (c.y_percent) top_v = std::max(top_v, 0.1);
  auto yt = nice_ticks(0, top_v, c.integer_y ? std::min(5, static_cast<int>(top_v)) : 5);
  if (c.integer_y) {
    std::vector<double> ints;
    for (double t : yt)
      if (std::fabs(t - std::round(t)) < 1e-9) ints.push_back(t);
    yt = ints.size() >= 2 ? ints : std::vector<double>{0, 1};
  }
  double hi = std::max(top_v, yt.back());
  auto py = [&](double y) { return f.top + f.plot_h() * (1 - y / hi); };

  std::string out = open_svg(f, c.title, "bar") + leg;
  out += y_axis(f, yt, 0, hi, c.y_percent);
  size_t ns = std::max<size_t>(c.series.size(), 1);
  double inner = group_w * 0.78;
  double bar_w = inner / static_cast<double>(ns);
  for (size_t k = 0; k < c.categories.size(); ++k) {
    double gx = f.left + group_w * static_cast<double>(k) + (group_w - inner) / 2;
    for (size_t i = 0; i < c.series.size(); ++i) {
      const auto& vals = c.series[i].second;
      double v = k < vals.size() ? vals[k] : 0;
      double x = gx + bar_w * static_cast<double>(i);
      double y = py(v);
      std::string shown = c.y_percent ? fmt_pct(v) : tick_label(v, false);
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" rx=\"1.5\">"
          "<title>{}: {} = {}</title></rect>",
          num(x + 1), num(y), num(std::max(bar_w - 2, 1.0)), num(f.top + f.plot_h() - y), color(i),
          html_escape(c.series[i].first), html_escape(c.categories[k]), shown);
      if (c.value_labels && v > 0 && bar_w >= 14)
        out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"val\">{}</text>",
                           num(x + bar_w / 2), num(y - 3),
                           c.y_percent ? fmt::format("{:.0f}%", 100 * v) : tick_label(v, false));
    }
    double cx = f.left + group_w * (static_cast<double>(k) + 0.5);
    double ly = f.top + f.plot_h() + 16;
    if (rotate)
      out += fmt::format(
          "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" class=\"tk\" "
          "transform=\"rotate(-35 {0} {1})\">{2}</text>",
          num(cx + 4), num(ly - 4), html_escape(c.categories[k]));
    else
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"tk\">{}</text>",
                         num(cx), num(ly), html_escape(c.categories[k]));
  }
  if (empty) out += no_data(f);
  out += axis_labels(f, c.x_label, c.y_label);
  return out + "</svg>";
}

std::vector<int> bin_counts(const std::vector<double>& values, const std::vector<double>& edges) {
  if (edges.size() < 2) return {};
  std::vector<int> counts(edges.size() - 1, 0);
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    auto it = std::upper_bound(edges.begin(), edges.end(), v);
    long i = static_cast<long>(it - edges.begin()) - 1;
    i = std::clamp(i, 0L, static_cast<long>(counts.size()) - 1);
    ++counts[static_cast<size_t>(i)];
  }
  return counts;
}

std::string histogram(const Histogram& h) {
  BarChart c;
  c.title = h.title;
  c.x_label = h.x_label;
  c.y_label = h.y_label;
  c.integer_y = true;
  c.width = h.width;
  c.height = h.height;
  auto lab = [&](double v) { return tick_label(v, false) + h.unit; };
  size_t nb = h.edges.size() < 2 ? 0 : h.edges.size() - 1;
  for (size_t i = 0; i < nb; ++i) {
    if (i == 0 && nb > 1)
      c.categories.push_back("<" + lab(h.edges[1]));
    else if (i + 1 == nb && nb > 1)
      c.categories.push_back("\u2265" + lab(h.edges[i]));
    else
      c.categories.push_back(lab(h.edges[i]) + "\u2013" + lab(h.edges[i + 1]));
  }
  for (const auto& [name, vals] : h.samples) {
    std::vector<double> counts;
    for (int n : bin_counts(vals, h.edges)) counts.push_back(n);
    c.series.push_back({name, counts});
  }
  return bar_chart(c);
}

std::string sparkline(const std::vector<double>& ys, int width, int height,
                      const std::string& col) {
  std::string out = fmt::format("<svg class=\"spark\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
                                "height=\"{1}\" role=\"img\" aria-label=\"trajectory\">",
                                width, height);
  if (ys.size() < 2) return out + "</svg>";
  auto [mn, mx] = std::minmax_element(ys.begin(), ys.end());
  double lo = std::min(*mn, 0.0), hi = std::max(*mx, 0.0);
  if (hi - lo < 1e-9) hi = lo + 1;
  auto py = [&](double y) { return 2 + (height - 4) * (1 - (y - lo) / (hi - lo)); };
  auto px = [&](size_t i) {
    return 1 + (width - 2) * static_cast<double>(i) / static_cast<double>(ys.size() - 1);
  };
  if (lo < 0 && hi > 0)
    out += fmt::format("<line x1=\"0\" x2=\"{}\" y1=\"{}\" y2=\"{}\" class=\"zero\"/>", width,
                       num(py(0)), num(py(0)));
  std::string d;
  for (size_t i = 0; i < ys.size(); ++i)
    d += fmt::format("{}{} {}", i ? " L" : "M", num(px(i)), num(py(ys[i])));
  out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>", d,
                     col.empty() ? color(0) : col);
  return out + "</svg>";
}

}  // namespace evk::svg
