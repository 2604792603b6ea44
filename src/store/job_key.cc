#include "store/job_key.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "ingest/trace_kinds.h"
#include "wire/file_format.h"

namespace plasmient::store {
namespace {

// Two 64-bit lanes of a multiply-xorshift over 8-byte words: fast and well mixed; not
// cryptographic (the key only has to tell different traces apart).
class Hasher {
 public:
  void Update(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      word_ |= static_cast<std::uint64_t>(p[i]) << (8 * fill_);
      if (++fill_ == 8) Mix();
    }
    length_ += n;
  }
  std::string Hex() {
    std::uint64_t len = length_;
    Update(&len, sizeof len);
    while (fill_ != 0) Update("", 1);
    return fmt::format("{:016x}{:016x}", Final(a_), Final(b_));
  }

 private:
  void Mix() {
    a_ = (a_ ^ word_) * 0x9E3779B97F4A7C15ull;
    a_ ^= a_ >> 29;
    b_ = (b_ + word_) * 0xC2B2AE3D27D4EB4Full;
    b_ ^= b_ >> 31;
    b_ = (b_ << 27) | (b_ >> 37);
    word_ = 0;
    fill_ = 0;
  }
  static std::uint64_t Final(std::uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
  }
  std::uint64_t a_ = 0x243F6A8885A308D3ull, b_ = 0x13198A2E03707344ull;
  std::uint64_t word_ = 0;
  int fill_ = 0;
  std::uint64_t length_ = 0;
};

FileIdentity IdentityOf(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {};
  auto ns = [](const timespec& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), st.st_size,
          ns(st.st_mtim), ns(st.st_ctim)};
}

}  // namespace

Result<std::vector<FileIdentity>> IdentitiesOf(const JobEntry& entry, const ingest::OpenRules& rules) {
  std::vector<FileIdentity> out;
  for (const auto& file : entry.files) {
    auto f = ingest::InputFile::Open(file.string(), rules);
    if (!f) return std::unexpected(f.error());
    out.push_back(IdentityOf(f->fd()));
  }
  return out;
}

Result<std::string> HashEntry(const JobEntry& entry, const ingest::OpenRules& rules,
                              const std::function<bool()>& stop, std::vector<FileIdentity>* identities) {
  if (identities) identities->clear();
  Hasher h;
  h.Update(entry.name.data(), entry.name.size() + 1);
  std::vector<char> buf(1 << 20);
  for (const auto& file : entry.files) {
    std::string rel = file.filename().string();
    h.Update(rel.data(), rel.size() + 1);
    auto f = ingest::InputFile::Open(file.string(), rules);
    if (!f) return std::unexpected(f.error());
    if (identities) identities->push_back(IdentityOf(f->fd()));
    while (true) {
      ssize_t n = ::read(f->fd(), buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Fail("{}: read error: {}", file.string(), std::strerror(errno));
      if (n == 0) break;
      if (stop && stop()) return Fail("{}: stopped while hashing", file.string());
      h.Update(buf.data(), static_cast<std::size_t>(n));
    }
  }
  return h.Hex();
}

// A duty-cycled agent's file, "<job>-<rank>-<host>-<pid>-<seq>.pltrace" (no '-' inside a part):
// its job, so that every window of a job is one job. Empty for any other name.
namespace {

std::string_view AgentWindowJob(std::string_view name) {
  if (!name.ends_with(wire::kFileSuffix)) return {};
  name.remove_suffix(std::string_view(wire::kFileSuffix).size());
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    std::size_t dash = name.find('-', at);
    parts.push_back(name.substr(at, dash == std::string_view::npos ? std::string_view::npos : dash - at));
    if (dash == std::string_view::npos) break;
    at = dash + 1;
  }
  auto digits = [](std::string_view p) {
    return !p.empty() && std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (parts.size() != 5 || parts[0].empty() || !digits(parts[3]) || !digits(parts[4])) return {};
  return parts[0];
}

}  // namespace

std::string JobIdOf(const JobEntry& entry) {
  if (entry.is_folder) return entry.name;
  if (std::string_view job = AgentWindowJob(entry.name); !job.empty()) return std::string(job);
  return std::string(ingest::TraceStem(entry.name));
}

}  // namespace plasmient::store
