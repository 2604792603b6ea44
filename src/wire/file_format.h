// The native trace file: a FileHeader, then length-prefixed, checksummed chunks of records.
// A file cut off at any byte still yields every complete chunk; see chunk_codec.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace plasmient::wire {

inline constexpr char kFileMagic[8] = {'P', 'L', 'S', 'M', 'N', 'T', 'R', '\n'};
inline constexpr char kFileSuffix[] = ".pltrace";         // the agent's file names end so
inline constexpr std::uint32_t kChunkMagic = 0x4b4e4843;  // "CHNK" little-endian

enum class ClockDomain : std::uint32_t {
  kMonotonic = 1,  // clock_gettime(CLOCK_MONOTONIC), ns: CUPTI's clock via the timestamp callback
};

// What one file of a duty-cycled agent covers (PLASMIENT_PERIOD_S > 0). A whole-run file has
// no flag: it covers the process's life.
enum FileFlags : std::uint32_t {
  kFileWindow = 1u << 0,   // one stretch of a process's life (window or samples file)
  kFileKernels = 1u << 1,  // kernel activity was collected during it (a kernel window)
};

struct FileHeader {
  char magic[8];
  std::uint32_t format_version;    // kFormatVersion
  std::uint32_t header_bytes;      // sizeof(FileHeader)
  std::uint32_t clock_domain;      // ClockDomain
  std::uint32_t flags;             // FileFlags
  std::int64_t start_realtime_ns;  // CLOCK_REALTIME at start, paired with:
  std::int64_t start_monotonic_ns;
  char clock_description[48];  // human-readable, NUL-padded
  std::uint32_t reserved;
  std::uint32_t header_crc;  // CRC32C of the bytes before this field
};
static_assert(sizeof(FileHeader) == 96);
static_assert(std::has_unique_object_representations_v<FileHeader>);

enum ChunkFlags : std::uint32_t {
  kChunkZstd = 1u << 0,  // payload is one zstd frame; else stored as is
  kChunkLast = 1u << 1,  // the writer closed the file after this chunk: its absence means a cut
};

struct ChunkHeader {
  std::uint32_t magic;         // kChunkMagic
  std::uint32_t flags;         // ChunkFlags
  std::uint32_t stored_bytes;  // payload bytes that follow this header
  std::uint32_t raw_bytes;     // payload bytes after decompression
  std::uint32_t record_count;  // records in the payload
  std::uint32_t payload_crc;   // CRC32C of the stored payload
  std::uint64_t sequence;      // 0, 1, 2, ... per file: gaps reveal lost chunks
  std::uint32_t reserved;
  std::uint32_t header_crc;  // CRC32C of the bytes before this field
};
static_assert(sizeof(ChunkHeader) == 40);
static_assert(std::has_unique_object_representations_v<ChunkHeader>);
static_assert(offsetof(ChunkHeader, header_crc) == 36);

inline constexpr std::uint32_t kMaxChunkRawBytes = 64u << 20;  // readers refuse larger chunks

}  // namespace plasmient::wire
