// Small helpers over JSON text that simdjson does not offer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/kineto_json/time_text.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace plasmient::ingest {

// Index of the next '"' or '\\' at or after i, else n.
inline std::size_t FindStringEnd(const char* p, std::size_t i, std::size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    if (p[i] == '"' || p[i] == '\\') return i;
  }
  return n;
}

// `raw` without whitespace outside strings; returns `raw` itself when it has none, else a view
// of *scratch.
std::string_view MinifyJson(std::string_view raw, std::string* scratch);

// A token of 1 to 8 plain digits as an integer, in one 8-byte load: only for text with 8
// readable bytes from the token's start (simdjson's padded buffers). False for anything else.
inline bool ParseShortDigitsPadded(std::string_view token, std::int64_t* out) {
  const std::size_t n = token.size();
  if (n == 0 || n > 8) return false;
  // The digits shifted to the top bytes, '0's in below them: leading zeros change nothing.
  const std::uint64_t zeros = n == 8 ? 0 : 0x3030303030303030ULL >> (8 * n);
  std::uint64_t value;
  if (!ParseEightDigits((LoadEight(token.data()) << (8 * (8 - n))) | zeros, &value)) return false;
  *out = static_cast<std::int64_t>(value);
  return true;
}

// A JSON number token as an integer: exact for integers (and "12.0"), truncated for other
// fractions, false when out of range or not a number.
bool ParseNumberAsInteger(std::string_view token, std::int64_t* out);

}  // namespace plasmient::ingest
