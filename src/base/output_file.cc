#include "base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/replace_file.h"

namespace plasmient {
namespace {

// The process's umask without changing it (umask(2) would, for every thread at once): Linux
// reports it in /proc/self/status; 022 where it does not.
mode_t CurrentUmask() {
  mode_t mask = 022;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[128];
    unsigned value = 0;
    while (std::fgets(line, sizeof line, f)) {
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = static_cast<mode_t>(value);
        break;
      }
    }
    std::fclose(f);
  }
  return mask;
}

}  // namespace

Result<OutputFile> OutputFile::Open(const std::string& path) {
  struct stat st {};
  const bool in_place = ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (in_place) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return Fail("{}: cannot write: {}", path, std::strerror(errno));
    return OutputFile(path, std::string(), file);
  }
  // A new file under an unpredictable name (base/replace_file.h): a link planted at the old
  // "<path>.<pid>.partial" made `--out` in a shared folder write through it.
  std::string temp;
  int fd = CreateTempBeside(path, ".partial", temp);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "wb");
  if (file == nullptr) {
    int error = errno;
    if (fd >= 0) {
      ::close(fd);
      ::unlink(temp.c_str());
    }
    return Fail("{}: cannot write: {}", path, std::strerror(error));
  }
  ::fchmod(fd, 0666 & ~CurrentUmask());  // mkstemp makes it 0600; an output file is the user's usual mode
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

namespace {

// Puts `temp` at `path`. A file already there is swapped out and removed rather than renamed
// over: on ext4 a rename that replaces a file first writes the new one's every block out
// (auto_da_alloc), 50-200 ms for the 80 MB verdict of a thousand ranks, where the swap costs
// nothing and the old file, removed, a few ms. Where the file system cannot swap, a plain rename.
int PutInPlace(const std::string& temp, const std::string& path) {
#if defined(RENAME_EXCHANGE)
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    ::unlink(temp.c_str());  // the old file, now at the temporary name
    return 0;
  }
#endif
  return std::rename(temp.c_str(), path.c_str());
}

}  // namespace

Status OutputFile::Commit() {
  if (file_ == nullptr) return Fail("{}: cannot write: already closed", path_);
  failed_ = failed_ || std::ferror(file_) != 0;  // writes made through get()
  errno = 0;
  if (std::fclose(std::exchange(file_, nullptr)) != 0 && !failed_) {
    failed_ = true;
    errno_ = errno;
  }
  if (!failed_ && !temp_.empty() && PutInPlace(temp_, path_) != 0) {
    failed_ = true;
    errno_ = errno;
  }
  if (!failed_) return Ok();
  if (!temp_.empty()) std::remove(temp_.c_str());
  return Fail("{}: cannot write: {}", path_, errno_ != 0 ? std::strerror(errno_) : "a write failed");
}

}  // namespace plasmient
