// Chunk readers: turn a file (plain or gzip) or a memory buffer into a sequence of
// uncompressed chunks, never holding the whole input.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"
#include "ingest/kineto_json/gzip_inflater.h"

namespace plasmient::ingest {

// Chunk sizes where the caller leaves them to the reader (0): plain input in large windows; gzip
// inflated into smaller chunks, so that the decoder (its CRC pass included) and then the framer
// touch output still in cache (BM_InflateGzip: ~13% less CPU inflating at 1 MiB than at 8 MiB).
inline constexpr std::size_t kDefaultChunkBytes = 8u << 20;
inline constexpr std::size_t kDefaultGzipChunkBytes = 1u << 20;

// True when the bytes start with the gzip magic (1f 8b).
bool LooksLikeGzip(std::string_view first_bytes);

// A source of uncompressed bytes, delivered in chunks.
class ChunkReader {
 public:
  virtual ~ChunkReader() = default;
  // The next chunk; empty at the end of input. The view stays valid until the next call.
  virtual Result<std::string_view> Next() = 0;
  // Raw (possibly compressed) input bytes consumed so far, and in all (for progress).
  virtual std::int64_t raw_bytes_done() const = 0;
  virtual std::int64_t raw_bytes_total() const = 0;
};

// Reads a file with large reads; `chunk_bytes` is the read size.
class FileChunkReader final : public ChunkReader {
 public:
  static Result<std::unique_ptr<FileChunkReader>> Open(const std::string& path, std::size_t chunk_bytes,
                                                       const OpenRules& rules = {});
  // Takes an open file (InputFile::Release) at offset 0.
  FileChunkReader(int fd, std::string path, std::int64_t total, std::size_t chunk_bytes);
  ~FileChunkReader() override;
  Result<std::string_view> Next() override;
  std::int64_t raw_bytes_done() const override { return done_; }
  std::int64_t raw_bytes_total() const override { return total_; }

 private:
  int fd_;
  std::string path_;
  std::int64_t total_;
  std::int64_t done_ = 0;
  std::vector<char> buffer_;
};

// Hands out windows of a plain file mapped read-only (madvise SEQUENTIAL): nothing is copied out of
// the page cache. The pages before the window handed out last are dropped (MADV_DONTNEED), so the
// mapping holds about one window in memory whatever the file's size. A file that shrinks while it
// is read fails at the next window (a page past its new end would be a SIGBUS).
class MappedChunkReader final : public ChunkReader {
 public:
  // Takes an open file (InputFile::Release) of `size` > 0 bytes; null, the file left open, when it
  // cannot be mapped.
  static std::unique_ptr<MappedChunkReader> Map(int fd, std::string path, std::int64_t size,
                                                std::size_t chunk_bytes);
  ~MappedChunkReader() override;
  Result<std::string_view> Next() override;
  std::int64_t raw_bytes_done() const override { return static_cast<std::int64_t>(pos_); }
  std::int64_t raw_bytes_total() const override { return static_cast<std::int64_t>(size_); }

 private:
  MappedChunkReader(int fd, std::string path, const char* base, std::size_t size, std::size_t chunk_bytes)
      : fd_(fd), path_(std::move(path)), base_(base), size_(size), chunk_bytes_(chunk_bytes) {}

  int fd_;
  std::string path_;
  const char* base_;
  std::size_t size_;
  std::size_t chunk_bytes_;
  std::size_t pos_ = 0;       // bytes handed out
  std::size_t released_ = 0;  // bytes at the start whose pages were dropped
};

// Hands out slices of a buffer the caller keeps alive.
class MemoryChunkReader final : public ChunkReader {
 public:
  MemoryChunkReader(std::string_view bytes, std::size_t chunk_bytes)
      : bytes_(bytes), chunk_bytes_(chunk_bytes == 0 ? 1 : chunk_bytes) {}
  Result<std::string_view> Next() override;
  std::int64_t raw_bytes_done() const override { return static_cast<std::int64_t>(pos_); }
  std::int64_t raw_bytes_total() const override { return static_cast<std::int64_t>(bytes_.size()); }

 private:
  std::string_view bytes_;
  std::size_t chunk_bytes_;
  std::size_t pos_ = 0;
};

// Streams gzip (including concatenated members) from another reader with `engine`
// (gzip_inflater.h), and fails once more than `max_out_bytes` come out (a gzip bomb).
class GzipChunkReader final : public ChunkReader {
 public:
  GzipChunkReader(std::unique_ptr<ChunkReader> compressed, std::string name, std::size_t chunk_bytes,
                  std::int64_t max_out_bytes, GzipEngine engine = DefaultGzipEngine());
  Result<std::string_view> Next() override;
  // Inflates the next bytes into `out`, filling it unless the input ends: 0 at the end. Next() is
  // Fill into a buffer of its own; a caller with buffers of its own keeps several chunks at once.
  Result<std::size_t> Fill(std::span<char> out);
  std::int64_t raw_bytes_done() const override { return compressed_->raw_bytes_done(); }
  std::int64_t raw_bytes_total() const override { return compressed_->raw_bytes_total(); }
  std::size_t chunk_bytes() const { return chunk_bytes_; }
  const std::string& name() const { return name_; }

 private:
  std::unique_ptr<ChunkReader> compressed_;
  std::string name_;
  std::size_t chunk_bytes_;
  std::vector<char> out_;  // Next()'s buffer, sized at its first call
  std::unique_ptr<Inflater> inflater_;
  std::string_view pending_;  // compressed bytes not yet taken by the inflater
  std::string carry_;         // read-ahead bytes handed back at a member's end, then pending_
  bool input_done_ = false;
  bool member_done_ = false;    // the last member ended; more input may start another
  std::int64_t in_offset_ = 0;  // compressed bytes handed to the inflater so far
  std::int64_t out_total_ = 0;  // inflated bytes handed out so far
  std::int64_t max_out_;
};

// Opens a file, plain or gzip as its first bytes say (never its name). `*is_gzip` is set. A plain
// file is mapped (MappedChunkReader), or read with read(2) where it cannot be.
// `chunk_bytes`: the size of the chunks handed out; 0: kDefaultChunkBytes, kDefaultGzipChunkBytes
// for gzip. `max_decoded_bytes` bounds what gzip may inflate to; 0: DecodedBytesCap(the file's size).
// `inflate_ahead`: gzip is inflated on a thread of its own (InflateAheadReader), for a consumer
// with other work to overlap it with.
Result<std::unique_ptr<ChunkReader>> OpenChunkReader(const std::string& path, std::size_t chunk_bytes,
                                                     bool* is_gzip, const OpenRules& rules = {},
                                                     std::int64_t max_decoded_bytes = 0,
                                                     bool inflate_ahead = false);
// The same over a caller-owned buffer.
std::unique_ptr<ChunkReader> MemoryChunkReaderFor(std::string_view bytes, const std::string& name,
                                                  std::size_t chunk_bytes, bool* is_gzip,
                                                  std::int64_t max_decoded_bytes = 0,
                                                  bool inflate_ahead = false);

}  // namespace plasmient::ingest
