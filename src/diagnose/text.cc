#include "diagnose/text.h"

#include <fmt/format.h>

namespace plasmient::diagnose {

std::string Count(std::int64_t n, std::string_view many, std::string_view one) {
  return fmt::format("{} {}", n, n == 1 && !one.empty() ? one : many);
}

std::string Thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  if (n < 0) out.insert(out.begin(), '-');
  return out;
}

std::string SecondsText(double s) {
  return s >= 1 ? fmt::format("{:.2f} s", s) : fmt::format("{:.1f} ms", s * 1e3);
}

std::string DurationText(double s) {
  return s < 1e-6   ? fmt::format("{:.0f} ns", s * 1e9)
         : s < 1e-3 ? fmt::format("{:.0f} µs", s * 1e6)
                    : SecondsText(s);
}

}  // namespace plasmient::diagnose
