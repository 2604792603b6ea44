#include "ingest/kineto_json/json_text.h"

#include <charconv>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "ingest/kineto_json/time_text.h"

namespace plasmient::ingest {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

#if defined(__SSE2__)
__m128i SpaceBytes(__m128i v) {
  return _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
}
#endif

// Index of the first JSON whitespace byte in p[0, n), else n.
std::size_t FindSpace(const char* p, std::size_t n) {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    int mask = _mm_movemask_epi8(SpaceBytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < n && !IsSpace(p[i])) ++i;
  return i;
}

// Copies the string opening at p[i] as written, through its closing quote (or the end of the
// text), to *out; returns the index after it.
std::size_t CopyString(const char* p, std::size_t i, std::size_t n, char** out) {
  std::size_t close = FindStringEnd(p, i + 1, n);
  while (close < n && p[close] == '\\') close = FindStringEnd(p, close + 2, n);
  std::size_t stop = close < n ? close + 1 : n;
  std::memcpy(*out, p + i, stop - i);
  *out += stop - i;
  return stop;
}

// Minifies p[i, n) to out, one byte at a time; returns the end of what it wrote.
char* MinifyScalar(const char* p, std::size_t i, std::size_t n, char* out) {
  while (i < n) {
    // Outside strings: every byte but whitespace, without a branch on it.
    for (; i < n && p[i] != '"'; ++i) {
      *out = p[i];
      out += !IsSpace(p[i]);
    }
    if (i < n) i = CopyString(p, i, n, &out);
  }
  return out;
}

#if defined(__x86_64__)
// For each 8-bit mask of bytes to drop, the pshufb indices that gather the others to the front.
struct CompactTable {
  std::uint64_t gather[256];
};
constexpr CompactTable MakeCompactTable() {
  CompactTable table{};
  for (unsigned drop = 0; drop < 256; ++drop) {
    std::uint64_t indices = 0x8080808080808080;  // 0x80: a zero byte
    int kept = 0;
    for (int b = 0; b < 8; ++b) {
      if ((drop >> b & 1) != 0) continue;
      indices &= ~(0xFFULL << (8 * kept));
      indices |= static_cast<std::uint64_t>(b) << (8 * kept);
      ++kept;
    }
    table.gather[drop] = indices;
  }
  return table;
}
constexpr CompactTable kCompact = MakeCompactTable();

// Writes the bytes of v whose bit in `drop` is clear to out, in order, and returns the end of
// what it kept; it stores to all of out[0, 16) whatever it keeps.
[[gnu::target("ssse3,popcnt")]] char* Compact16(__m128i v, unsigned drop, char* out) {
  __m128i lo = _mm_shuffle_epi8(v, _mm_cvtsi64_si128(static_cast<long long>(kCompact.gather[drop & 0xFF])));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), lo);
  out += 8 - __builtin_popcount(drop & 0xFF);
  __m128i hi = _mm_shuffle_epi8(_mm_srli_si128(v, 8),
                                _mm_cvtsi64_si128(static_cast<long long>(kCompact.gather[drop >> 8])));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), hi);
  return out + 8 - __builtin_popcount(drop >> 8);
}

// 16 bytes at a time outside strings: shapes ("[[8, 512, 7168], [1024]]") are mostly that, and
// the byte loop cost ~10 instructions a byte. Strings are copied as they are.
[[gnu::target("ssse3,popcnt")]] char* MinifySsse3(const char* p, std::size_t n, char* out) {
  std::size_t i = 0;
  while (i + 16 <= n) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    auto quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))));
    auto spaces = static_cast<unsigned>(_mm_movemask_epi8(SpaceBytes(v)));
    if (quotes == 0) {
      out = Compact16(v, spaces, out);
      i += 16;
      continue;
    }
    unsigned before = (1u << __builtin_ctz(quotes)) - 1;  // the bytes before the string
    out = Compact16(v, spaces | (~before & 0xFFFF), out);
    i = CopyString(p, i + static_cast<std::size_t>(__builtin_ctz(quotes)), n, &out);
  }
  return MinifyScalar(p, i, n, out);
}
#endif

}  // namespace

std::string_view MinifyJson(std::string_view raw, std::string* scratch) {
  while (!raw.empty() && IsSpace(raw.back())) raw.remove_suffix(1);
  const char* p = raw.data();
  const std::size_t n = raw.size();
  if (FindSpace(p, n) == n) return raw;
  // Written through a pointer into a buffer sized once: every cpu_op's shapes and types come
  // through here. The output never runs ahead of the input read, so 16-byte stores made while
  // 16 input bytes remain stay inside it.
  scratch->resize(n);
  char* out = scratch->data();
#if defined(__x86_64__)
  static const bool ssse3 = __builtin_cpu_supports("ssse3") != 0 && __builtin_cpu_supports("popcnt") != 0;
  out = ssse3 ? MinifySsse3(p, n, out) : MinifyScalar(p, 0, n, out);
#else
  out = MinifyScalar(p, 0, n, out);
#endif
  scratch->resize(static_cast<std::size_t>(out - scratch->data()));
  return *scratch;
}

bool ParseNumberAsInteger(std::string_view token, std::int64_t* out) {
  // Nearly every id, count and size is a few plain digits: read those without the general
  // parse's trimming and overflow checks (18 digits cannot overflow int64).
  if (!token.empty() && token.size() <= 18) {
    std::int64_t value = 0;
    std::size_t i = 0;
    for (; i < token.size() && static_cast<unsigned char>(token[i] - '0') <= 9; ++i)
      value = value * 10 + (token[i] - '0');
    if (i == token.size()) {
      *out = value;
      return true;
    }
  }
  while (!token.empty() && IsSpace(token.back())) token.remove_suffix(1);
  if (ParseInteger(token, out)) return true;
  double d = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
  if (ec != std::errc() || end != token.data() + token.size()) return false;
  if (!(d > -9.2e18 && d < 9.2e18)) return false;
  *out = static_cast<std::int64_t>(d);
  return true;
}

}  // namespace plasmient::ingest
