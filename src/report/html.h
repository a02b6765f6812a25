// Small text helpers shared by the HTML report, `show` and `export`: escaping and the number
// formats every view uses, so that a latency or a speed-up reads the same everywhere.
#pragma once
#include <string>
#include <string_view>

namespace evk {

// Escapes & < > " ' so that any text (kernel code, task names, LLM replies) is inert in HTML
// element content and in attribute values.
std::string html_escape(std::string_view s);

// Latency in ms with 3 significant digits, switching to us below 0.1 ms ("12.3 us", "4.56 ms").
// 0 or negative: "-".
std::string fmt_ms(double ms);
// Speed-up ratio: "3.21x"; 0, negative or not finite: "-".
std::string fmt_x(double r);
// Share in [0,1] as percent: "83.0%".
std::string fmt_pct(double share);
// Token counts: "950", "12.3k", "4.56M".
std::string fmt_count(double n);

}  // namespace evk
