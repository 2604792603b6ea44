#include "base/money_text.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace plasmient {
namespace {

constexpr double kCent = 0.01;
// Past this the cents no longer fit an int64 exactly: whole dollars in exponent form.
constexpr double kMaxCents = 9e18;

// "11167948" as "11,167,948".
std::string Grouped(std::uint64_t whole) {
  std::string digits = fmt::format("{}", whole);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace

std::string Money(double dollars) {
  if (!std::isfinite(dollars)) return "n/a";
  if (dollars > 0 && dollars < kCent) return "<$0.01";
  const double cents = std::round(std::fabs(dollars) * 100);
  const char* sign = dollars < 0 && cents > 0 ? "-" : "";
  if (cents >= kMaxCents) return fmt::format("{}${:.3e}", sign, std::fabs(dollars));
  const auto c = static_cast<std::uint64_t>(cents);
  return fmt::format("{}${}.{:02}", sign, Grouped(c / 100), c % 100);
}

}  // namespace plasmient
