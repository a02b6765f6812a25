#include <gtest/gtest.h>

#include "report/html.h"
#include "report/svg.h"

namespace evk {
namespace {

size_t svg_count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Html, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(Html, NumberFormats) {
  EXPECT_EQ(fmt_ms(4.5678), "4.57 ms");
  EXPECT_EQ(fmt_ms(0.0123), "12.3 us");
  EXPECT_EQ(fmt_ms(0), "-");
  EXPECT_EQ(fmt_x(3.21), "3.21x");
  EXPECT_EQ(fmt_x(0), "-");
  EXPECT_EQ(fmt_pct(0.83), "83.0%");
  EXPECT_EQ(fmt_count(12345), "12.3k");
}

TEST(Svg, NiceTicksCoverTheRangeWithRoundSteps) {
  auto t = svg::nice_ticks(0, 1, 5);
  ASSERT_FALSE(t.empty());
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_DOUBLE_EQ(t.back(), 1);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 0.2);
  auto u = svg::nice_ticks(-0.8, 1.3, 5);
  EXPECT_LE(u.front(), -0.5);
  EXPECT_GE(u.back(), 1.0);
  EXPECT_DOUBLE_EQ(u[1] - u[0], 0.5);
}

TEST(Svg, BinsAreHalfOpenWithOpenEnds) {
  std::vector<double> edges = {1, 2, 4, 1e300};
  auto c = svg::bin_counts({0.5, 1, 1.99, 2, 3.9, 4, 100}, edges);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], 3);  // 0.5 (below the first edge), 1, 1.99
  EXPECT_EQ(c[1], 2);  // 2, 3.9
  EXPECT_EQ(c[2], 2);  // 4, 100
}

TEST(Svg, LineChartDrawsOnePathPerSeriesAndEscapesLabels) {
  svg::LineChart c;
  c.title = "Acc <after> each attempt";
  c.series.push_back({"run 1 & friends", {{0, 0}, {1, 0.5}, {2, 1}}, "", true, false});
  c.series.push_back({"run 2", {{0, 0}, {2, 0.5}}, "", false, true});
  std::string s = svg::line_chart(c);
  EXPECT_EQ(s.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg_count(s, "<path"), 2u);
  EXPECT_EQ(svg_count(s, "<circle"), 2u);  // markers of run 2
  EXPECT_NE(s.find("Acc &lt;after&gt; each attempt"), std::string::npos);
  EXPECT_NE(s.find("run 1 &amp; friends"), std::string::npos);
  EXPECT_EQ(s.find("<after>"), std::string::npos);
  EXPECT_EQ(s.find("nan"), std::string::npos);
}

TEST(Svg, EmptyChartsSayNoData) {
  svg::LineChart c;
  c.title = "empty";
  EXPECT_NE(svg::line_chart(c).find("no data"), std::string::npos);
  svg::BarChart b;
  b.title = "empty bars";
  b.categories = {"a", "b"};
  b.series.push_back({"run", {0, 0}});
  std::string s = svg::bar_chart(b);
  EXPECT_NE(s.find("no data"), std::string::npos);
  EXPECT_EQ(s.find("nan"), std::string::npos);
}

TEST(Svg, BarChartHasOneRectPerValueAndTallerBarsForLargerValues) {
  svg::BarChart b;
  b.categories = {"compile", "mismatch"};
  b.series.push_back({"run 1", {2, 6}});
  b.series.push_back({"run 2", {4, 0}});
  b.integer_y = true;
  std::string s = svg::bar_chart(b);
  EXPECT_EQ(svg_count(s, "<rect") - 2, 4u);  // minus the two legend swatches
  auto height_of = [&](const std::string& title) {
    size_t t = s.find(title);
    size_t r = s.rfind("<rect", t);
    size_t h = s.find("height=\"", r) + 8;
    return std::stod(s.substr(h, s.find('"', h) - h));
  };
  EXPECT_NEAR(height_of("run 1: mismatch = 6") / height_of("run 1: compile = 2"), 3.0, 0.01);
}

TEST(Svg, SparklineIsASmallPath) {
  std::string s = svg::sparkline({0, -0.5, 0.25, 0.6});
  EXPECT_NE(s.find("<path"), std::string::npos);
  EXPECT_NE(s.find("class=\"zero\""), std::string::npos);  // spans 0
}

}  // namespace
}  // namespace evk
