// A file written through a memory buffer, plain or gzip (zlib), flushed in large chunks.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <zlib.h>

#include "base/result.h"

namespace plasmient::synth {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  Status Open(const std::string& path, bool gzip, int gzip_level);
  fmt::memory_buffer& buffer() { return buffer_; }
  // Writes the buffer out when it holds more than a chunk.
  Status MaybeFlush() { return buffer_.size() >= kChunkBytes ? Flush() : Ok(); }
  Status Flush();
  Status Close();
  std::int64_t bytes_written() const { return bytes_written_; }

 private:
  static constexpr std::size_t kChunkBytes = 1 << 20;
  std::string path_;
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  fmt::memory_buffer buffer_;
  std::int64_t bytes_written_ = 0;
};

}  // namespace plasmient::synth
