#include "synth/output_file.h"

#include <cerrno>
#include <cstring>

namespace plasmient::synth {

OutputFile::~OutputFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (gz_ != nullptr) gzclose(gz_);
}

Status OutputFile::Open(const std::string& path, bool gzip, int gzip_level) {
  path_ = path;
  if (gzip) {
    const std::string mode = fmt::format("wb{}", gzip_level);
    gz_ = gzopen(path.c_str(), mode.c_str());
    if (gz_ == nullptr) return Fail("{}: cannot create: {}", path, std::strerror(errno));
    gzbuffer(gz_, 1 << 18);
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) return Fail("{}: cannot create: {}", path, std::strerror(errno));
  }
  return Ok();
}

Status OutputFile::Flush() {
  if (buffer_.size() == 0) return Ok();
  if (gz_ != nullptr) {
    const int n = gzwrite(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (n != static_cast<int>(buffer_.size())) {
      return Fail("{}: write failed at byte offset {}", path_, bytes_written_);
    }
  } else if (file_ != nullptr) {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      return Fail("{}: write failed at byte offset {}: {}", path_, bytes_written_, std::strerror(errno));
    }
  } else {
    return Fail("{}: write to a file that is not open", path_);
  }
  bytes_written_ += static_cast<std::int64_t>(buffer_.size());
  buffer_.clear();
  return Ok();
}

Status OutputFile::Close() {
  PLASMIENT_TRY(Flush());
  if (gz_ != nullptr) {
    const int rc = gzclose(gz_);
    gz_ = nullptr;
    if (rc != Z_OK) return Fail("{}: gzip close failed at byte offset {}", path_, bytes_written_);
  }
  if (file_ != nullptr) {
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) return Fail("{}: close failed at byte offset {}", path_, bytes_written_);
  }
  return Ok();
}

}  // namespace plasmient::synth
