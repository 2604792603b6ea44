// CRC32C (Castagnoli), the checksum of native trace headers and chunks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace plasmient::wire {

// Continues `crc` (0 to start) over `size` bytes.
std::uint32_t Crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace plasmient::wire
