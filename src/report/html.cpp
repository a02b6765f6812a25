#include "report/html.h"

#include <fmt/format.h>

#include <cmath>

namespace evk {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

static std::string sig3(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

std::string fmt_ms(double ms) {
  if (!(ms > 0) || !std::isfinite(ms)) return "-";
  if (ms < 0.1) return sig3(ms * 1000) + " us";
  if (ms >= 10000) return sig3(ms / 1000) + " s";
  return sig3(ms) + " ms";
}

std::string fmt_x(double r) {
  if (!(r > 0) || !std::isfinite(r)) return "-";
  return sig3(r) + "x";
}

std::string fmt_pct(double share) { return fmt::format("{:.1f}%", 100 * share); }

std::string fmt_count(double n) {
  if (n >= 1e6) return sig3(n / 1e6) + "M";
  if (n >= 1e4) return sig3(n / 1e3) + "k";
  return fmt::format("{:.0f}", n);
}

}  // namespace evk
