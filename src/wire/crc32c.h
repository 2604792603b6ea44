// CRC32C (Castagnoli), the checksum of native trace headers and chunks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace plasmient::wire {

// Continues `crc` (0 to start) over `size` bytes.
// Uses the CPU's CRC32C instruction where there is one (x86-64 SSE4.2), else tables.
std::uint32_t Crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);
// The table-driven version, whatever the CPU (tests compare the two).
std::uint32_t Crc32cPortableForTest(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace plasmient::wire
