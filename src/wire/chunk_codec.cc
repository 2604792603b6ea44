#include "wire/chunk_codec.h"

#include <algorithm>
#include <cstring>
#include <limits>

#ifdef PLASMIENT_WIRE_HAVE_ZSTD
#include <zstd.h>
#endif

#include "wire/crc32c.h"

namespace plasmient::wire {
namespace {

std::uint32_t HeaderCrc(const ChunkHeader& h) { return Crc32c(&h, offsetof(ChunkHeader, header_crc)); }

std::string At(std::size_t offset, const std::string& what) {
  return "offset " + std::to_string(offset) + ": " + what;
}

// Finds the next offset >= from holding a chunk header with a valid header checksum.
std::size_t Resync(const std::uint8_t* data, std::size_t size, std::size_t from) {
  for (std::size_t pos = from; pos + sizeof(ChunkHeader) <= size; ++pos) {
    std::uint32_t magic;
    std::memcpy(&magic, data + pos, sizeof magic);
    if (magic != kChunkMagic) continue;
    ChunkHeader h;
    std::memcpy(&h, data + pos, sizeof h);
    if (HeaderCrc(h) == h.header_crc) return pos;
  }
  return size;
}

}  // namespace

#ifdef PLASMIENT_WIRE_HAVE_ZSTD
struct ChunkEncoder::Zstd {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  std::vector<std::uint8_t> buffer;
  ~Zstd() { ZSTD_freeCCtx(cctx); }
};
bool ZstdAvailable() { return true; }
#else
struct ChunkEncoder::Zstd {};
bool ZstdAvailable() { return false; }
#endif

FileHeader MakeFileHeader(std::int64_t start_realtime_ns, std::int64_t start_monotonic_ns,
                          std::uint32_t flags) {
  FileHeader h{};
  h.flags = flags;
  std::memcpy(h.magic, kFileMagic, sizeof h.magic);
  h.format_version = kFormatVersion;
  h.header_bytes = sizeof(FileHeader);
  h.clock_domain = static_cast<std::uint32_t>(ClockDomain::kMonotonic);
  h.start_realtime_ns = start_realtime_ns;
  h.start_monotonic_ns = start_monotonic_ns;
  static constexpr char kDescription[] = "CLOCK_MONOTONIC ns (CUPTI timestamp callback)";
  static_assert(sizeof kDescription <= sizeof h.clock_description);
  std::memcpy(h.clock_description, kDescription, sizeof kDescription);
  h.header_crc = Crc32c(&h, offsetof(FileHeader, header_crc));
  return h;
}

ChunkEncoder::ChunkEncoder(int zstd_level) : zstd_(std::make_unique<Zstd>()), level_(zstd_level) {
  if (!ZstdAvailable()) level_ = 0;
}

ChunkEncoder::~ChunkEncoder() = default;

void ChunkEncoder::Encode(const std::uint8_t* raw, std::size_t raw_bytes, std::uint32_t record_count,
                          std::uint32_t extra_flags, std::vector<std::uint8_t>& out) {
  ChunkHeader h{};
  h.magic = kChunkMagic;
  h.flags = extra_flags & ~static_cast<std::uint32_t>(kChunkZstd);
  h.raw_bytes = static_cast<std::uint32_t>(raw_bytes);
  h.record_count = record_count;
  h.sequence = sequence_++;
  const std::uint8_t* payload = raw;
  std::size_t stored = raw_bytes;
#ifdef PLASMIENT_WIRE_HAVE_ZSTD
  if (level_ != 0 && raw_bytes > 0) {
    zstd_->buffer.resize(ZSTD_compressBound(raw_bytes));
    std::size_t n =
        ZSTD_compressCCtx(zstd_->cctx, zstd_->buffer.data(), zstd_->buffer.size(), raw, raw_bytes, level_);
    if (!ZSTD_isError(n) && n < raw_bytes) {
      payload = zstd_->buffer.data();
      stored = n;
      h.flags |= kChunkZstd;
    }
  }
#endif
  h.stored_bytes = static_cast<std::uint32_t>(stored);
  h.payload_crc = Crc32c(payload, stored);
  h.header_crc = HeaderCrc(h);
  const auto* hb = reinterpret_cast<const std::uint8_t*>(&h);
  out.insert(out.end(), hb, hb + sizeof h);
  out.insert(out.end(), payload, payload + stored);
}

ScanReport ScanChunks(const std::uint8_t* data, std::size_t size, const ChunkVisitor& on_chunk,
                      std::uint64_t max_total_raw_bytes) {
  ScanReport r;
  auto problem = [&r](std::size_t offset, const std::string& what) {
    if (r.first_problem.empty()) r.first_problem = At(offset, what);
  };
  if (size < sizeof(kFileMagic) || std::memcmp(data, kFileMagic, sizeof(kFileMagic)) != 0) {
    if (size < sizeof(kFileMagic) && std::memcmp(data, kFileMagic, size) == 0) {
      r.truncated = true;
      problem(size, "file ends inside the file header");
      return r;
    }
    r.error = At(0, "not a Plasmient native trace (bad magic)");
    return r;
  }
  if (size < sizeof(FileHeader)) {
    r.truncated = true;
    r.truncated_at = 0;
    problem(size, "file ends inside the file header");
    return r;
  }
  std::memcpy(&r.header, data, sizeof r.header);
  if (Crc32c(&r.header, offsetof(FileHeader, header_crc)) != r.header.header_crc) {
    r.error = At(0, "file header checksum mismatch");
    return r;
  }
  if (r.header.format_version < kOldestFormatVersion || r.header.format_version > kFormatVersion) {
    r.error = At(8, "unsupported format version " + std::to_string(r.header.format_version));
    return r;
  }
  std::size_t pos = std::max<std::size_t>(r.header.header_bytes, sizeof(FileHeader));
  std::vector<std::uint8_t> raw;
  std::uint64_t next_sequence = 0;
  std::uint64_t total_raw = 0;
  bool saw_last = false;
#ifdef PLASMIENT_WIRE_HAVE_ZSTD
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
#endif
  while (pos < size) {
    if (size - pos < sizeof(ChunkHeader)) {
      r.truncated = true;
      r.truncated_at = pos;
      problem(pos, "file ends inside a chunk header");
      break;
    }
    ChunkHeader h;
    std::memcpy(&h, data + pos, sizeof h);
    if (h.magic != kChunkMagic || HeaderCrc(h) != h.header_crc) {
      std::size_t next = Resync(data, size, pos + 1);
      ++r.corrupt_chunks;
      problem(pos, "bad chunk header; skipped to offset " + std::to_string(next));
      pos = next;
      continue;
    }
    std::size_t body = pos + sizeof h;
    if (h.stored_bytes > size - body) {
      r.truncated = true;
      r.truncated_at = pos;
      problem(pos, "file ends inside a chunk payload");
      break;
    }
    const std::uint8_t* payload = data + body;
    pos = body + h.stored_bytes;
    if (Crc32c(payload, h.stored_bytes) != h.payload_crc || h.raw_bytes > kMaxChunkRawBytes) {
      ++r.corrupt_chunks;
      problem(body, "chunk payload checksum mismatch");
      continue;
    }
    if (max_total_raw_bytes != 0 && h.raw_bytes > max_total_raw_bytes - total_raw) {
      r.error = At(body, "chunks decompress to more than " + std::to_string(max_total_raw_bytes >> 20) +
                             " MiB, the cap for this input");
      break;
    }
    total_raw += h.raw_bytes;
    if (h.sequence > next_sequence) {
      // A damaged sequence number can claim any gap: the count saturates instead of wrapping.
      constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      std::uint64_t gap = std::min(h.sequence - next_sequence, kMax);
      r.missing_sequence =
          static_cast<std::int64_t>(std::min(static_cast<std::uint64_t>(r.missing_sequence) + gap, kMax));
    }
    next_sequence = h.sequence + 1;
    saw_last = saw_last || (h.flags & kChunkLast) != 0;
    if ((h.flags & kChunkZstd) == 0) {
      if (h.stored_bytes != h.raw_bytes) {
        ++r.corrupt_chunks;
        problem(body, "stored chunk size differs from its raw size");
        continue;
      }
      ++r.chunks_ok;
      on_chunk(h, payload, h.raw_bytes);
      continue;
    }
#ifdef PLASMIENT_WIRE_HAVE_ZSTD
    raw.resize(h.raw_bytes);
    std::size_t n = ZSTD_decompressDCtx(dctx, raw.data(), raw.size(), payload, h.stored_bytes);
    if (ZSTD_isError(n) || n != h.raw_bytes) {
      ++r.corrupt_chunks;
      problem(body, "zstd payload does not decompress to its recorded size");
      continue;
    }
    ++r.chunks_ok;
    on_chunk(h, raw.data(), raw.size());
#else
    ++r.unsupported_chunks;
    problem(body, "zstd-compressed chunk, but this build has no zstd");
#endif
  }
#ifdef PLASMIENT_WIRE_HAVE_ZSTD
  ZSTD_freeDCtx(dctx);
#endif
  if (!r.truncated && !saw_last) {
    r.truncated = true;
    r.truncated_at = size;
    problem(size, "no closing chunk: the writer did not finish");
  }
  return r;
}

bool WalkRecords(const std::uint8_t* raw, std::size_t raw_bytes, const RecordVisitor& on_record) {
  std::size_t pos = 0;
  while (pos < raw_bytes) {
    if (raw_bytes - pos < sizeof(RecordHeader)) return false;
    RecordHeader h;
    std::memcpy(&h, raw + pos, sizeof h);
    if (h.size_bytes < sizeof(RecordHeader) || h.size_bytes > raw_bytes - pos) return false;
    on_record(h, raw + pos);
    pos += h.size_bytes;
  }
  return true;
}

}  // namespace plasmient::wire
