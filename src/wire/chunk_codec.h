// Framing of the native trace file: encode chunks (agent side) and scan a file's bytes back
// into chunks (reader side), tolerating a cut at any byte and corrupt chunks.
// Standard library only, plus libzstd when PLASMIENT_WIRE_HAVE_ZSTD is defined; without it
// chunks are stored uncompressed (kChunkZstd clear) and zstd chunks cannot be read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "wire/file_format.h"
#include "wire/records.h"

namespace plasmient::wire {

// True when this build can write and read zstd-compressed chunks.
bool ZstdAvailable();

FileHeader MakeFileHeader(std::int64_t start_realtime_ns, std::int64_t start_monotonic_ns,
                          std::uint32_t flags = 0);

class ChunkEncoder {
 public:
  // zstd_level 0 stores chunks uncompressed (also what happens in a build without zstd).
  explicit ChunkEncoder(int zstd_level);
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  // Appends a ChunkHeader and the (possibly compressed) payload to `out`.
  void Encode(const std::uint8_t* raw, std::size_t raw_bytes, std::uint32_t record_count,
              std::uint32_t extra_flags, std::vector<std::uint8_t>& out);
  std::uint64_t chunks_written() const { return sequence_; }
  // The next chunk is a new file's first (sequence 0).
  void StartFile() { sequence_ = 0; }

 private:
  struct Zstd;
  std::unique_ptr<Zstd> zstd_;
  int level_;
  std::uint64_t sequence_ = 0;
};

struct ScanReport {
  std::string error;  // non-empty: not a readable native file at all
  FileHeader header{};
  std::int64_t chunks_ok = 0;
  std::int64_t corrupt_chunks = 0;      // bad checksum, bad header, undecodable payload
  std::int64_t unsupported_chunks = 0;  // zstd chunk in a build without zstd
  bool truncated = false;               // the file ends inside a chunk or without a last chunk
  std::uint64_t truncated_at = 0;       // offset of the first byte not read when truncated
  std::int64_t missing_sequence = 0;    // chunks whose sequence number never appeared
  std::string first_problem;            // "offset N: what", for the first problem met
};

// Calls `on_chunk` with each good chunk's decompressed payload, in file order. When the
// payloads would add up to more than `max_total_raw_bytes` (0: no cap), stops with `error` set:
// each chunk is capped, a file of many small, highly compressed chunks is not.
using ChunkVisitor = std::function<void(const ChunkHeader&, const std::uint8_t* raw, std::size_t raw_bytes)>;
ScanReport ScanChunks(const std::uint8_t* data, std::size_t size, const ChunkVisitor& on_chunk,
                      std::uint64_t max_total_raw_bytes = 0);

// Walks the records of one payload. Returns false on a record that does not fit or is too small
// (the rest of the payload is then skipped); `on_record` gets each record's header and bytes.
using RecordVisitor = std::function<void(const RecordHeader&, const std::uint8_t* record)>;
bool WalkRecords(const std::uint8_t* raw, std::size_t raw_bytes, const RecordVisitor& on_record);

}  // namespace plasmient::wire
