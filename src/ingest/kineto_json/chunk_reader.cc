#include "ingest/kineto_json/chunk_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ingest/kineto_json/inflate_ahead_reader.h"

namespace plasmient::ingest {

bool LooksLikeGzip(std::string_view first_bytes) {
  return first_bytes.size() >= 2 && static_cast<unsigned char>(first_bytes[0]) == 0x1f &&
         static_cast<unsigned char>(first_bytes[1]) == 0x8b;
}

// ---- file ----

FileChunkReader::FileChunkReader(int fd, std::string path, std::int64_t total, std::size_t chunk_bytes)
    : fd_(fd), path_(std::move(path)), total_(total), buffer_(std::max<std::size_t>(chunk_bytes, 1)) {
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

FileChunkReader::~FileChunkReader() { ::close(fd_); }

Result<std::unique_ptr<FileChunkReader>> FileChunkReader::Open(const std::string& path,
                                                               std::size_t chunk_bytes,
                                                               const OpenRules& rules) {
  auto file = InputFile::Open(path, rules);
  if (!file) return std::unexpected(file.error());
  std::int64_t size = file->size();
  return std::make_unique<FileChunkReader>(file->Release(), path, size, chunk_bytes);
}

Result<std::string_view> FileChunkReader::Next() {
  std::size_t filled = 0;
  while (filled < buffer_.size()) {
    ssize_t n = ::read(fd_, buffer_.data() + filled, buffer_.size() - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail("{}: read failed: {} at byte {}", path_, std::strerror(errno), done_ + filled);
    }
    if (n == 0) break;
    filled += static_cast<std::size_t>(n);
  }
  done_ += static_cast<std::int64_t>(filled);
  return std::string_view(buffer_.data(), filled);
}

// ---- mapped file ----

std::unique_ptr<MappedChunkReader> MappedChunkReader::Map(int fd, std::string path, std::int64_t size,
                                                          std::size_t chunk_bytes) {
  if (size <= 0) return nullptr;
  void* base = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) return nullptr;
  ::madvise(base, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
  return std::unique_ptr<MappedChunkReader>(
      new MappedChunkReader(fd, std::move(path), static_cast<const char*>(base),
                            static_cast<std::size_t>(size), std::max<std::size_t>(chunk_bytes, 1)));
}

MappedChunkReader::~MappedChunkReader() {
  ::munmap(const_cast<char*>(base_), size_);
  ::close(fd_);
}

Result<std::string_view> MappedChunkReader::Next() {
  // The last window is done with: its whole pages go (the page cache keeps them, this process not).
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t release_to = pos_ / page * page;
  if (release_to > released_) {
    ::madvise(const_cast<char*>(base_) + released_, release_to - released_, MADV_DONTNEED);
    released_ = release_to;
  }
  if (pos_ == size_) return std::string_view();
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_size < static_cast<off_t>(size_)) {
    return Fail("{}: the file shrank to {} bytes while it was read at byte {}", path_, st.st_size, pos_);
  }
  std::size_t n = std::min(chunk_bytes_, size_ - pos_);
  std::string_view out(base_ + pos_, n);
  pos_ += n;
  return out;
}

// ---- memory ----

Result<std::string_view> MemoryChunkReader::Next() {
  std::size_t n = std::min(chunk_bytes_, bytes_.size() - pos_);
  std::string_view out = bytes_.substr(pos_, n);
  pos_ += n;
  return out;
}

// ---- gzip ----

GzipChunkReader::GzipChunkReader(std::unique_ptr<ChunkReader> compressed, std::string name,
                                 std::size_t chunk_bytes, std::int64_t max_out_bytes, GzipEngine engine)
    : compressed_(std::move(compressed)),
      name_(std::move(name)),
      chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)),
      inflater_(MakeInflater(engine)),
      max_out_(max_out_bytes) {}

Result<std::string_view> GzipChunkReader::Next() {
  out_.resize(chunk_bytes_);
  auto filled = Fill(out_);
  if (!filled) return std::unexpected(filled.error());
  return std::string_view(out_.data(), *filled);
}

Result<std::size_t> GzipChunkReader::Fill(std::span<char> out) {
  if (!inflater_) return Fail("{}: cannot start gzip decoder at byte 0", name_);
  std::size_t filled = 0;
  while (filled < out.size()) {
    if (pending_.empty() && !input_done_) {
      auto chunk = compressed_->Next();
      if (!chunk) return std::unexpected(chunk.error());
      input_done_ = chunk->empty();
      pending_ = *chunk;
      in_offset_ = compressed_->raw_bytes_done() - static_cast<std::int64_t>(chunk->size());
    }
    if (member_done_) {
      if (pending_.empty()) {
        if (input_done_) break;
        continue;
      }
      // Another gzip member follows the last one (concatenated gzip).
      inflater_->Reset();
      member_done_ = false;
    }
    InflateStep step = inflater_->Inflate(pending_, out.subspan(filled));
    pending_.remove_prefix(step.consumed);
    in_offset_ += static_cast<std::int64_t>(step.consumed);
    filled += step.produced;
    if (step.error != nullptr)
      return Fail("{}: corrupt gzip data ({}) at byte {}", name_, step.error, in_offset_);
    if (!step.returned.empty()) {
      // Read ahead past the member's trailer: those bytes come before what is still pending.
      std::string carry(step.returned);  // pending_ may point into carry_ itself
      carry.append(pending_);
      carry_ = std::move(carry);
      pending_ = carry_;
      in_offset_ -= static_cast<std::int64_t>(step.returned.size());
    }
    if (step.member_end) {
      member_done_ = true;
    } else if (step.consumed == 0 && step.produced == 0 && pending_.empty() && input_done_) {
      return Fail("{}: truncated gzip stream at byte {}", name_, compressed_->raw_bytes_done());
    }
  }
  out_total_ += static_cast<std::int64_t>(filled);
  if (out_total_ > max_out_) {
    return Fail(
        "{}: inflates to more than {} MiB, the cap for this input ({}x its size, at least {} MiB) at byte {}",
        name_, max_out_ >> 20, kDecodedBytesFactor, kMinDecodedBytesCap >> 20, in_offset_);
  }
  return filled;
}

// ---- factories ----

namespace {

std::unique_ptr<ChunkReader> Inflating(std::unique_ptr<ChunkReader> compressed, const std::string& name,
                                       std::size_t chunk_bytes, std::int64_t cap, bool inflate_ahead) {
  auto gzip = std::make_unique<GzipChunkReader>(std::move(compressed), name,
                                                chunk_bytes == 0 ? kDefaultGzipChunkBytes : chunk_bytes, cap);
  if (!inflate_ahead) return gzip;
  return std::make_unique<InflateAheadReader>(std::move(gzip));
}

}  // namespace

Result<std::unique_ptr<ChunkReader>> OpenChunkReader(const std::string& path, std::size_t chunk_bytes,
                                                     bool* is_gzip, const OpenRules& rules,
                                                     std::int64_t max_decoded_bytes, bool inflate_ahead) {
  auto file = InputFile::Open(path, rules);
  if (!file) return std::unexpected(file.error());
  char magic[2] = {0, 0};
  ssize_t n = ::pread(file->fd(), magic, sizeof magic, 0);
  *is_gzip = n == 2 && LooksLikeGzip(std::string_view(magic, 2));
  std::int64_t size = file->size();
  std::size_t plain_chunk_bytes = chunk_bytes == 0 ? kDefaultChunkBytes : chunk_bytes;
  if (!*is_gzip) {
    if (auto mapped = MappedChunkReader::Map(file->fd(), path, size, plain_chunk_bytes)) {
      file->Release();  // the mapped reader closes it
      return std::unique_ptr<ChunkReader>(std::move(mapped));
    }
  }
  auto reader = std::make_unique<FileChunkReader>(
      file->Release(), path, size,
      *is_gzip ? std::min<std::size_t>(plain_chunk_bytes, 1u << 20) : plain_chunk_bytes);
  if (!*is_gzip) return std::unique_ptr<ChunkReader>(std::move(reader));
  std::int64_t cap = max_decoded_bytes > 0 ? max_decoded_bytes : DecodedBytesCap(size);
  return Inflating(std::move(reader), path, chunk_bytes, cap, inflate_ahead);
}

std::unique_ptr<ChunkReader> MemoryChunkReaderFor(std::string_view bytes, const std::string& name,
                                                  std::size_t chunk_bytes, bool* is_gzip,
                                                  std::int64_t max_decoded_bytes, bool inflate_ahead) {
  *is_gzip = LooksLikeGzip(bytes.substr(0, 2));
  auto memory =
      std::make_unique<MemoryChunkReader>(bytes, chunk_bytes == 0 ? kDefaultChunkBytes : chunk_bytes);
  if (!*is_gzip) return memory;
  std::int64_t cap =
      max_decoded_bytes > 0 ? max_decoded_bytes : DecodedBytesCap(static_cast<std::int64_t>(bytes.size()));
  return Inflating(std::move(memory), name, chunk_bytes, cap, inflate_ahead);
}

}  // namespace plasmient::ingest
