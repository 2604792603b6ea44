#include "ingest/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

namespace plasmient::ingest {

std::int64_t DecodedBytesCap(std::int64_t input_bytes) {
  return std::max(kMinDecodedBytesCap, kDecodedBytesFactor * std::max<std::int64_t>(input_bytes, 0));
}

std::string_view FileKindName(unsigned st_mode) {
  if (S_ISREG(st_mode)) return "a regular file";
  if (S_ISDIR(st_mode)) return "a directory";
  if (S_ISFIFO(st_mode)) return "a FIFO";
  if (S_ISCHR(st_mode)) return "a character device";
  if (S_ISBLK(st_mode)) return "a block device";
  if (S_ISSOCK(st_mode)) return "a socket";
  if (S_ISLNK(st_mode)) return "a symbolic link";
  return "not a regular file";
}

namespace {

// The part of `path` below `dir` ("a/b" for "/s/a/b" below "/s/"), or nullopt when it is not below.
std::optional<std::string_view> Below(std::string_view path, std::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (dir.empty() || !path.starts_with(dir)) return std::nullopt;
  std::string_view rest = path.substr(dir.size());
  if (dir != "/" && !rest.starts_with('/')) return std::nullopt;
  while (rest.starts_with('/')) rest.remove_prefix(1);
  return rest;
}

}  // namespace

int OpenBeneath(const std::string& path, const std::string& beneath, int flags, unsigned mode) {
  flags |= O_CLOEXEC;
  auto rest = Below(path, beneath);
  if (!rest) return ::open(path.c_str(), flags, mode);
  int dir = ::open(beneath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  while (dir >= 0) {
    std::size_t slash = rest->find('/');
    std::string name(rest->substr(0, slash));
    if (name == "..") {
      ::close(dir);
      errno = EACCES;
      return -1;
    }
    if (slash == std::string_view::npos) {
      int fd = ::openat(dir, name.c_str(), flags | O_NOFOLLOW, mode);
      int error = errno;
      ::close(dir);
      errno = error;
      return fd;
    }
    rest->remove_prefix(slash + 1);
    while (rest->starts_with('/')) rest->remove_prefix(1);
    if (name == "." || name.empty()) continue;
    int next = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int error = errno;
    struct stat st {};
    if (next < 0 && ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      error = ELOOP;  // some kernels say ENOTDIR for a link opened with O_DIRECTORY
    }
    ::close(dir);
    errno = error;
    dir = next;
  }
  return -1;
}

Result<InputFile> InputFile::Open(const std::string& path, const OpenRules& rules) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; fstat says what it is first.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (rules.no_follow ? O_NOFOLLOW : 0);
  int fd = OpenBeneath(path, rules.beneath, flags);
  if (fd < 0) {
    if (errno == ELOOP && !rules.beneath.empty()) {
      return Fail("{}: a symbolic link (the file or a folder on its path below {}): refused at byte 0", path,
                  rules.beneath);
    }
    if (errno == ELOOP && rules.no_follow) return Fail("{}: a symbolic link: refused at byte 0", path);
    return Fail("{}: cannot open: {} at byte 0", path, std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Fail("{}: cannot stat: {} at byte 0", path, std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Fail("{}: {}, not a regular file: refused at byte 0", path, FileKindName(st.st_mode));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return InputFile(fd, st.st_size);
}

InputFile::InputFile(InputFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int InputFile::Release() { return std::exchange(fd_, -1); }

}  // namespace plasmient::ingest
