#include "base/replace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plasmient {

int CreateTempBeside(const std::filesystem::path& path, std::string_view suffix, std::string& temp_name) {
  temp_name = path.string() + ".XXXXXX";
  temp_name += suffix;
  // mkostemps opens with O_CREAT|O_EXCL, which never follows a link at the final component.
  return ::mkostemps(temp_name.data(), static_cast<int>(suffix.size()), O_CLOEXEC);
}

Status ReplaceFile(const std::filesystem::path& path, std::string_view data,
                   const ReplaceFileOptions& options) {
  std::string temp;
  int fd = CreateTempBeside(path, options.temp_suffix, temp);
  if (fd < 0) return Fail("{}: cannot write: {}", path.string(), std::strerror(errno));
  bool ok = ::fchmod(fd, options.mode) == 0;
  for (std::string_view rest = data; ok && !rest.empty();) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ok = ok && (!options.durable || ::fsync(fd) == 0);
  int error = ok ? 0 : (errno != 0 ? errno : EIO);
  ok = ::close(fd) == 0 && ok;
  if (ok && std::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    return Fail("{}: cannot write: {}", path.string(), std::strerror(error != 0 ? error : errno));
  }
  if (options.durable) {
    // The rename is durable once the folder is.
    std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
    int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    bool synced = dir >= 0 && ::fsync(dir) == 0;
    if (dir >= 0) ::close(dir);
    if (!synced) return Fail("{}: cannot write: its folder cannot be synced", path.string());
  }
  return Ok();
}

}  // namespace plasmient
