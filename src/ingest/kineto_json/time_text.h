// Exact decimal-text conversions for trace timestamps: Kineto writes microseconds as JSON
// numbers with up to 3 fractional digits (ns); float64 cannot hold 1.7e15 us to the ns.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace plasmient::ingest {

// Parses a JSON number in microseconds ("12", "1712195495406752.8", "-3.5", "1.2e3") into
// nanoseconds, exactly for up to 3 fractional digits, rounded half away from zero beyond.
// Trailing whitespace is ignored. False for anything else or on int64 overflow.
bool ParseMicrosToNs(std::string_view text, std::int64_t* ns);

// Parses a JSON integer (optionally with a zero fraction, "12.0") into int64.
bool ParseInteger(std::string_view text, std::int64_t* value);

inline std::uint64_t LoadEight(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// The value of 8 characters loaded little-endian (the first is the low byte) when all are
// digits: 8 at once (SWAR, as simdjson does) where a loop costs a few instructions a digit.
inline bool ParseEightDigits(std::uint64_t v, std::uint64_t* value) {
  if (((v & 0xF0F0F0F0F0F0F0F0) | (((v + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) !=
      0x3333333333333333)
    return false;
  v -= 0x3030303030303030;
  v = v * 10 + (v >> 8);  // pairs of digits
  *value = (((v & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
            (((v >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
           32;
  return true;
}

}  // namespace plasmient::ingest
