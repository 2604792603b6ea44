// Numbers as people read them: percentages, durations, FLOP/s, bytes; money is base's Money
// ("$1,234.50", base/money_text.h).
#pragma once

#include <optional>
#include <string>

#include "base/money_text.h"
#include "verdict/verdict.h"

namespace plasmient::exporting {

std::string Percent(double fraction);                   // "42%", "0.4%", "n/a"
std::string Seconds(double s);                          // "1.23 s", "4.5 ms", "12 µs"
std::string SiNumber(double v, std::string_view unit);  // "989 TFLOP/s", "3.35 TB/s"
std::string SignedPoints(double fraction_delta);        // "+12.3 pts", "−4.0 pts"
std::string Headroom(std::optional<double> times);      // "2.7×", "> 100×" above 100, "n/a" when none
// A fix's layer as one line: "24 × Qwen2Attention: 49% of GPU time at 13% of peak; memory-bound
// kernels: 78% of its time, 64% of this loss". The top kernel is not in it.
std::string FixLayerText(const verdict::FixLayer& layer, verdict::Loss loss);
// `text` without control characters (C0, DEL, C1): names come from traces, and an escape
// sequence in a kernel name must not reach the terminal.
std::string PrintableText(std::string_view text);

}  // namespace plasmient::exporting
