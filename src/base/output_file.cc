#include "base/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace plasmient {

Result<OutputFile> OutputFile::Open(const std::string& path) {
  struct stat st {};
  const bool in_place = ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  std::string temp = in_place ? std::string() : fmt::format("{}.{}.partial", path, ::getpid());
  std::FILE* file = std::fopen(in_place ? path.c_str() : temp.c_str(), "wb");
  if (file == nullptr) return Fail("{}: cannot write: {}", path, std::strerror(errno));
  return OutputFile(path, std::move(temp), file);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      file_(std::exchange(other.file_, nullptr)),
      failed_(other.failed_),
      errno_(other.errno_) {}

OutputFile::~OutputFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (!temp_.empty()) std::remove(temp_.c_str());
}

bool OutputFile::Write(std::string_view text) {
  if (!failed_ && !text.empty() && std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    failed_ = true;
    errno_ = errno;
  }
  return !failed_;
}

Status OutputFile::Commit() {
  if (file_ == nullptr) return Fail("{}: cannot write: already closed", path_);
  failed_ = failed_ || std::ferror(file_) != 0;  // writes made through get()
  errno = 0;
  if (std::fclose(std::exchange(file_, nullptr)) != 0 && !failed_) {
    failed_ = true;
    errno_ = errno;
  }
  if (!failed_ && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    failed_ = true;
    errno_ = errno;
  }
  if (!failed_) return Ok();
  if (!temp_.empty()) std::remove(temp_.c_str());
  return Fail("{}: cannot write: {}", path_, errno_ != 0 ? std::strerror(errno_) : "a write failed");
}

}  // namespace plasmient
