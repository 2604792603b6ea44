#include "wire/crc32c.h"

#include <array>

namespace plasmient::wire {
namespace {

constexpr std::uint32_t kPolynomial = 0x82f63b78;  // reflected Castagnoli polynomial

// Slicing-by-8 tables: table[0] is the byte-at-a-time table, table[k] advances k more bytes.
using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (std::uint32_t i = 0; i < 256; ++i) {
    for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

std::uint32_t Crc32cTable(const unsigned char* p, std::size_t size, std::uint32_t crc);

#if defined(__x86_64__)
// SSE4.2 has a CRC32C instruction: 8 bytes per instruction instead of 8 table lookups.
__attribute__((target("sse4.2"))) std::uint32_t Crc32cSse42(const unsigned char* p, std::size_t size,
                                                            std::uint32_t crc) {
  std::uint64_t c = crc;
  while (size >= 8) {
    std::uint64_t v;
    __builtin_memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
    p += 8;
    size -= 8;
  }
  auto c32 = static_cast<std::uint32_t>(c);
  while (size-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

bool HaveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

std::uint32_t Crc32c(const void* data, std::size_t size, std::uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (HaveSse42()) return ~Crc32cSse42(p, size, ~crc);
#endif
  return Crc32cTable(p, size, crc);
}

namespace {

std::uint32_t Crc32cTable(const unsigned char* p, std::size_t size, std::uint32_t crc) {
  crc = ~crc;
  while (size >= 8) {
    std::uint32_t lo = crc ^ (std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
                              std::uint32_t{p[3]} << 24);
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
          kTables[4][lo >> 24] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^ kTables[0][p[7]];
    p += 8;
    size -= 8;
  }
  while (size-- > 0) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
  return ~crc;
}

}  // namespace

std::uint32_t Crc32cPortableForTest(const void* data, std::size_t size, std::uint32_t crc) {
  return Crc32cTable(static_cast<const unsigned char*>(data), size, crc);
}

}  // namespace plasmient::wire
