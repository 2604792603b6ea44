#include "serve/spool.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "ingest/trace_kinds.h"

namespace plasmient::serve {
namespace fs = std::filesystem;

namespace {

bool IsInProgressName(std::string_view name) {
  return name.empty() || name.starts_with('.') || name.ends_with(".part") || name.ends_with(".tmp");
}

bool IsReservedFolder(std::string_view name) { return name == "done" || name == "failed"; }

fs::file_time_type MTime(const fs::path& p) {
  std::error_code ec;
  auto t = fs::last_write_time(p, ec);
  return ec ? fs::file_time_type::min() : t;
}

}  // namespace

bool IsTraceFileName(std::string_view name) {
  if (IsInProgressName(name)) return false;
  return ingest::IsTraceFileName(name);
}

namespace {

// A file with another name elsewhere may be someone else's file: where protected_hardlinks is 0
// anyone can link a file they cannot read into the spool, and serve, reading it, would put its
// text in the store. Refused unread.
std::string HardLinkRefusal(const fs::path& p, nlink_t links) {
  return fmt::format("{}: has {} hard links: refused", p.string(), links);
}

// Why a path in the spool is refused, or empty: read with lstat, so a link is seen as a link.
std::string Refusal(const fs::path& p, bool folder_ok, uid_t owner, const SpoolRules& rules) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0)
    return fmt::format("{}: cannot stat: {}", p.string(), std::strerror(errno));
  if (S_ISLNK(st.st_mode)) return fmt::format("{}: a symbolic link: refused", p.string());
  if (!S_ISREG(st.st_mode) && !(folder_ok && S_ISDIR(st.st_mode))) {
    return fmt::format("{}: {}, not a regular file: refused", p.string(), ingest::FileKindName(st.st_mode));
  }
  if (!rules.any_owner && st.st_uid != owner) {
    return fmt::format("{}: owned by uid {}, not by the spool's owner (uid {}): refused (serve --any-owner)",
                       p.string(), st.st_uid, owner);
  }
  if (S_ISREG(st.st_mode) && st.st_nlink > 1) return HardLinkRefusal(p, st.st_nlink);
  return {};
}

bool Exists(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

// A trace still being written or copied into a job folder ("rank3.json.part", ".rank3.json.gz"):
// the folder waits for it, unless nothing has written it for kAbandonedAge (its writer died).
bool IsTraceInProgress(const fs::directory_entry& f, std::string_view name) {
  if (name == ".done" || !IsInProgressName(name)) return false;
  std::string_view stem = name;
  stem.remove_prefix(stem.starts_with('.') ? 1 : 0);
  for (std::string_view suffix : {".part", ".tmp"}) {
    if (stem.ends_with(suffix)) stem.remove_suffix(suffix.size());
  }
  if (!ingest::IsTraceFileName(stem)) return false;
  return fs::file_time_type::clock::now() - MTime(f.path()) < kAbandonedAge;
}

// Fills a folder entry's marker and files; false while it is still being filled (no marker, or a
// trace in it still in progress).
bool ListFolder(SpoolEntry& entry, uid_t owner, const SpoolRules& rules) {
  if (entry.marker.empty() && Exists(entry.path / ".done")) entry.marker = entry.path / ".done";
  if (entry.marker.empty()) return false;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(entry.path, ec)) {
    std::string fname = f.path().filename().string();
    if (IsTraceInProgress(f, fname)) {
      entry.files.clear();
      entry.refusal.clear();
      return false;
    }
    if (!IsTraceFileName(fname)) continue;
    if (std::string why = Refusal(f.path(), false, owner, rules); !why.empty()) {
      if (entry.refusal.empty()) entry.refusal = why;
      continue;
    }
    entry.files.push_back(f.path());
  }
  std::sort(entry.files.begin(), entry.files.end());
  return true;
}

}  // namespace

std::vector<SpoolEntry> ListReady(const fs::path& spool, std::size_t limit, std::size_t* total,
                                  const SpoolRules& rules) {
  std::vector<std::pair<fs::file_time_type, SpoolEntry>> ready;
  struct stat spool_st {};
  uid_t owner = ::stat(spool.c_str(), &spool_st) == 0 ? spool_st.st_uid : ::geteuid();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(spool, ec)) {
    std::string name = e.path().filename().string();
    if (IsInProgressName(name) || IsReservedFolder(name) || name.ends_with(".done")) continue;
    SpoolEntry entry{name, e.path()};
    fs::path sibling = spool / (name + ".done");
    if (Exists(sibling)) entry.marker = sibling;
    std::error_code type_ec;
    entry.refusal = Refusal(e.path(), true, owner, rules);
    if (entry.refusal.empty() && e.symlink_status(type_ec).type() == fs::file_type::directory) {
      entry.is_folder = true;
      if (!ListFolder(entry, owner, rules)) continue;  // still being filled
    } else if (entry.refusal.empty()) {
      entry.files.push_back(e.path());  // non-trace names are ready too: they fail visibly
    }
    if (entry.refusal.empty() && !entry.marker.empty())
      entry.refusal = Refusal(entry.marker, false, owner, rules);
    ready.emplace_back(MTime(entry.marker.empty() ? e.path() : entry.marker), std::move(entry));
  }
  std::sort(ready.begin(), ready.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.name < b.second.name;
  });
  if (total) *total = ready.size();
  std::vector<SpoolEntry> out;
  for (auto& [t, entry] : ready) {
    if (out.size() == limit) break;
    out.push_back(std::move(entry));
  }
  return out;
}

Result<store::Labels> ReadMarkerLabels(const SpoolEntry& entry, const ingest::OpenRules& rules) {
  store::Labels labels;
  if (entry.marker.empty()) return labels;
  auto f = ingest::InputFile::Open(entry.marker.string(), rules);
  if (!f) return std::unexpected(f.error());
  struct stat st {};
  if (::fstat(f->fd(), &st) == 0 && st.st_nlink > 1)
    return Fail("{}", HardLinkRefusal(entry.marker, st.st_nlink));
  if (f->size() > kMaxMarkerBytes) {
    return Fail("{}: larger than {} KiB: not a marker", entry.marker.string(), kMaxMarkerBytes >> 10);
  }
  std::string text(static_cast<std::size_t>(kMaxMarkerBytes) + 1, '\0');
  ssize_t n = ::pread(f->fd(), text.data(), text.size(), 0);
  if (n < 0) return Fail("{}: read error: {}", entry.marker.string(), std::strerror(errno));
  text.resize(static_cast<std::size_t>(n));
  std::int64_t offset = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, end - at);
    std::int64_t here = offset;
    offset += static_cast<std::int64_t>(end - at) + 1;
    at = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line.starts_with('#')) continue;
    auto label = store::ParseLabel(line);
    // The marker's text is not quoted: its bytes are the writer's, the error file is not.
    if (!label) return Fail("{}: byte {}: not a key=value label line", entry.marker.string(), here);
    labels.push_back(std::move(*label));
  }
  return labels;
}

namespace {

// A descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The name an entry takes in done/ or failed/: its own, or `<name>.<n>` after a clash, cut so
// that `<dest>.error` and `<dest>.done` fit in a file name (NAME_MAX, 255 bytes): a 255-byte
// name dropped twice used to stay in the spool for good, its moves failing with "File name too
// long", and /healthz said 503 until someone removed it.
constexpr std::size_t kMaxDestBytes = NAME_MAX - std::string_view(".error").size();
std::string DestName(const std::string& name, int n) {
  std::string tail = n > 0 ? fmt::format(".{}", n) : "";
  if (name.size() + tail.size() <= kMaxDestBytes) return name + tail;
  if (tail.empty()) tail = ".0";  // cut: the tail tells it from a shorter name's own
  return name.substr(0, kMaxDestBytes - tail.size()) + tail;
}

bool ExistsAt(int dir, const std::string& name) {
  struct stat st {};
  return ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Moves the entry into spool/<to>/ through descriptors of the spool and of <to> (opened without
// following a link), so a done/ or failed/ swapped for a link is refused, never written through.
// `error`, when given, is written beside it as <name>.error (0600).
Result<fs::path> MoveInto(const SpoolEntry& entry, const fs::path& spool, std::string_view to,
                          const std::string* error) {
  fs::path dir = spool / to;
  Fd spool_fd(::open(spool.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (spool_fd.fd < 0) return Fail("{}: cannot open: {}", spool.string(), std::strerror(errno));
  std::string to_name(to);
  if (::mkdirat(spool_fd.fd, to_name.c_str(), 0755) != 0 && errno != EEXIST) {
    return Fail("{}: cannot create: {}", dir.string(), std::strerror(errno));
  }
  Fd to_fd(::openat(spool_fd.fd, to_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (to_fd.fd < 0) {
    return Fail(
        "{}: {}: refused", dir.string(),
        errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a folder" : std::strerror(errno));
  }
  auto taken = [&](const std::string& n) {
    return ExistsAt(to_fd.fd, n) || ExistsAt(to_fd.fd, n + ".done") || ExistsAt(to_fd.fd, n + ".error");
  };
  std::string dest = DestName(entry.name, 0);
  for (int n = 1; taken(dest); ++n) dest = DestName(entry.name, n);
  bool sibling_marker = !entry.marker.empty() && entry.marker.parent_path() == entry.path.parent_path();
  if (::renameat(spool_fd.fd, entry.name.c_str(), to_fd.fd, dest.c_str()) != 0) {
    return Fail("{}: cannot move to {}: {}", entry.path.string(), (dir / dest).string(),
                std::strerror(errno));
  }
  if (sibling_marker) {
    std::string marker = entry.marker.filename().string();
    if (::renameat(spool_fd.fd, marker.c_str(), to_fd.fd, (dest + ".done").c_str()) != 0)
      return Fail("{}: cannot move: {}", entry.marker.string(), std::strerror(errno));
  }
  if (error) {
    std::string text;
    for (char c : *error) {
      if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F) text += c;
    }
    text += '\n';
    std::string name = dest + ".error";
    int fd = ::openat(to_fd.fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return Fail("{}: cannot create: {}", (dir / name).string(), std::strerror(errno));
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ok = ::close(fd) == 0 && ok;
    if (!ok) return Fail("{}: cannot write", (dir / name).string());
  }
  return dir / dest;
}

}  // namespace

Result<fs::path> MoveEntry(const SpoolEntry& entry, const fs::path& spool, std::string_view to) {
  return MoveInto(entry, spool, to, nullptr);
}

Status FailEntry(const SpoolEntry& entry, const fs::path& spool, std::string_view error) {
  std::string text(error);
  auto dest = MoveInto(entry, spool, "failed", &text);
  if (!dest) return std::unexpected(dest.error());
  return Ok();
}

}  // namespace plasmient::serve
