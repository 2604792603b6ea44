// Text helpers every stage shares: locale-free ASCII lower-casing and whole-string integer
// parsing (trace names and flags are ASCII; the C locale's tolower is neither needed nor fast).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plasmient {

inline constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// The whole of `s` as a base-10 integer ("-12"; no spaces, no '+'); nullopt for anything else,
// an empty string and values out of range of T included.
template <typename T = std::int64_t>
std::optional<T> ParseInt(std::string_view s) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace plasmient
