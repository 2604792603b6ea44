#include "ingest/kineto_json/time_text.h"

#include <algorithm>
#include <limits>

namespace plasmient::ingest {
namespace {

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Drops trailing whitespace and a leading '-'; true when the '-' was there.
bool TrimAndTakeSign(std::string_view& text) {
  text = TrimRight(text);
  bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  return negative;
}

// The form nearly every timestamp takes, up to 15 digits with up to three decimals
// ("4458676522690.655"): exact in 64 bits without the general parse's digit buffer. False for
// anything else, which the general parse then reads.
bool ParsePlainMicros(std::string_view text, std::int64_t* ns) {
  constexpr std::size_t kMaxWholeDigits = 15;  // 10^15 us = 10^18 ns, within int64
  std::size_t i = 0, n = text.size();
  std::int64_t whole = 0;
  if (std::uint64_t eight; n >= 8 && ParseEightDigits(LoadEight(text.data()), &eight)) {
    whole = static_cast<std::int64_t>(eight);
    i = 8;
  }
  for (; i < n && IsDigit(text[i]); ++i) {
    if (i == kMaxWholeDigits) return false;
    whole = whole * 10 + (text[i] - '0');
  }
  if (i == 0) return false;
  std::int64_t fraction = 0, scale = 1000;
  if (i < n && text[i] == '.') {
    for (++i; i < n && IsDigit(text[i]); ++i) {
      if (scale == 1) return false;  // a fourth decimal: rounding is the general parse's
      scale /= 10;
      fraction += (text[i] - '0') * scale;
    }
  }
  if (i != n) return false;
  *ns = whole * 1000 + fraction;
  return true;
}

}  // namespace

bool ParseMicrosToNs(std::string_view text, std::int64_t* ns) {
  bool negative = TrimAndTakeSign(text);
  if (std::int64_t plain; ParsePlainMicros(text, &plain)) {
    *ns = negative ? -plain : plain;
    return true;
  }
  std::size_t i = 0, n = text.size();
  // Collect mantissa digits (without the point) and where the point sits.
  constexpr int kMaxDigits = 40;
  char digits[kMaxDigits];
  int count = 0;
  int int_digits = 0;
  bool any = false, seen_point = false;
  for (; i < n; ++i) {
    char c = text[i];
    if (IsDigit(c)) {
      any = true;
      if (count == 0 && c == '0') {  // leading zeros carry no value
        if (seen_point) --int_digits;
        continue;
      }
      if (count < kMaxDigits) {
        digits[count++] = c;
        if (!seen_point) ++int_digits;
      } else if (!seen_point) {
        return false;  // too large
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  int exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i >= n || !IsDigit(text[i])) return false;
    for (; i < n && IsDigit(text[i]); ++i) {
      if (exponent < 10000) exponent = exponent * 10 + (text[i] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return false;
  // Value = 0.digits * 10^(int_digits + exponent) us; in ns the integer part has
  // int_digits + exponent + 3 digits.
  long whole = static_cast<long>(int_digits) + exponent + 3;
  if (whole > 19) return count == 0 ? (*ns = 0, true) : false;
  std::uint64_t value = 0;
  for (long d = 0; d < whole; ++d) {
    int digit = d < count && d >= 0 ? digits[d] - '0' : 0;
    value = value * 10 + static_cast<std::uint64_t>(digit);
  }
  if (whole >= 0 && whole < count && digits[whole] >= '5') ++value;
  if (whole < 0) value = 0;
  if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  *ns = negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
  return true;
}

bool ParseInteger(std::string_view text, std::int64_t* value) {
  bool negative = TrimAndTakeSign(text);
  std::size_t i = 0, n = text.size();
  if (i >= n || !IsDigit(text[i])) return false;
  std::uint64_t v = 0;
  // 19 digits fit in 64 bits: only longer numbers need the overflow check on each digit.
  for (const std::size_t unchecked = std::min<std::size_t>(n, 19); i < unchecked && IsDigit(text[i]); ++i) {
    v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  for (; i < n && IsDigit(text[i]); ++i) {
    if (v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
    v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i < n && text[i] == '.') {  // accept "12.0", not "12.5"
    for (++i; i < n && text[i] == '0'; ++i) {
    }
  }
  if (i != n) return false;
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  *value = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  return true;
}

}  // namespace plasmient::ingest
