#include "fleet/spool.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace plasmient::fleet {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTraceSuffixes[] = {".json.gz", ".json", ".sqlite", ".plasmient"};

bool IsInProgressName(std::string_view name) {
  return name.empty() || name.starts_with('.') || name.ends_with(".part") || name.ends_with(".tmp");
}

bool IsReservedFolder(std::string_view name) { return name == "done" || name == "failed"; }

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

fs::file_time_type MTime(const fs::path& p) {
  std::error_code ec;
  auto t = fs::last_write_time(p, ec);
  return ec ? fs::file_time_type::min() : t;
}

}  // namespace

bool IsTraceFileName(std::string_view name) {
  if (IsInProgressName(name)) return false;
  return std::any_of(std::begin(kTraceSuffixes), std::end(kTraceSuffixes),
                     [&](std::string_view s) { return name.ends_with(s) && name.size() > s.size(); });
}

std::vector<SpoolEntry> ListReady(const fs::path& spool, std::size_t limit, std::size_t* total) {
  std::vector<std::pair<fs::file_time_type, SpoolEntry>> ready;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(spool, ec)) {
    std::string name = e.path().filename().string();
    if (IsInProgressName(name) || IsReservedFolder(name) || name.ends_with(".done")) continue;
    SpoolEntry entry{name, e.path()};
    fs::path sibling = spool / (name + ".done");
    if (fs::exists(sibling, ec)) entry.marker = sibling;
    std::error_code type_ec;
    if (e.is_directory(type_ec)) {
      entry.is_folder = true;
      if (entry.marker.empty() && fs::exists(e.path() / ".done", ec)) entry.marker = e.path() / ".done";
      if (entry.marker.empty()) continue;  // still being filled
      for (const auto& f : fs::directory_iterator(e.path(), ec)) {
        std::string fname = f.path().filename().string();
        if (f.is_regular_file(type_ec) && IsTraceFileName(fname)) entry.files.push_back(f.path());
      }
      std::sort(entry.files.begin(), entry.files.end());
    } else if (e.is_regular_file(type_ec)) {
      entry.files.push_back(e.path());  // non-trace names are ready too: they fail visibly
    } else {
      continue;
    }
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

Result<std::string> HashEntry(const SpoolEntry& entry) {
  Hasher h;
  h.Update(entry.name.data(), entry.name.size() + 1);
  std::vector<char> buf(1 << 20);
  for (const auto& file : entry.files) {
    std::string rel = file.filename().string();
    h.Update(rel.data(), rel.size() + 1);
    std::ifstream f(file, std::ios::binary);
    if (!f) return Fail("{}: cannot open", file.string());
    while (f) {
      f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      h.Update(buf.data(), static_cast<std::size_t>(f.gcount()));
    }
    if (f.bad()) return Fail("{}: read error", file.string());
  }
  return h.Hex();
}

Result<Labels> ReadMarkerLabels(const SpoolEntry& entry) {
  Labels labels;
  if (entry.marker.empty()) return labels;
  std::ifstream f(entry.marker);
  std::string line;
  std::int64_t offset = 0;
  while (std::getline(f, line)) {
    std::int64_t here = offset;
    offset += static_cast<std::int64_t>(line.size()) + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line.starts_with('#')) continue;
    auto label = ParseLabel(line);
    if (!label) return Fail("{}: byte {}: {}", entry.marker.string(), here, label.error().message);
    labels.push_back(std::move(*label));
  }
  return labels;
}

std::string JobIdOf(const SpoolEntry& entry) {
  if (entry.is_folder) return entry.name;
  std::string id = entry.name;
  for (std::string_view s : {".gz", ".json", ".pt.trace", ".sqlite", ".plasmient"}) {
    if (id.ends_with(s) && id.size() > s.size()) id.resize(id.size() - s.size());
  }
  return id;
}

Result<fs::path> MoveEntry(const SpoolEntry& entry, const fs::path& spool, std::string_view to) {
  fs::path dir = spool / to;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Fail("{}: cannot create: {}", dir.string(), ec.message());
  fs::path dest = dir / entry.name;
  for (int n = 1; fs::exists(dest, ec) || fs::exists(fs::path(dest) += ".done", ec); ++n) {
    dest = dir / fmt::format("{}.{}", entry.name, n);
  }
  bool sibling_marker = !entry.marker.empty() && entry.marker.parent_path() == entry.path.parent_path();
  fs::rename(entry.path, dest, ec);
  if (ec) return Fail("{}: cannot move to {}: {}", entry.path.string(), dest.string(), ec.message());
  if (sibling_marker) {
    fs::rename(entry.marker, fs::path(dest) += ".done", ec);
    if (ec) return Fail("{}: cannot move: {}", entry.marker.string(), ec.message());
  }
  return dest;
}

Status FailEntry(const SpoolEntry& entry, const fs::path& spool, std::string_view error) {
  auto dest = MoveEntry(entry, spool, "failed");
  if (!dest) return std::unexpected(dest.error());
  fs::path err = *dest;
  err += ".error";
  std::ofstream f(err);
  f << error << '\n';
  if (!f) return Fail("{}: cannot write", err.string());
  return Ok();
}

}  // namespace plasmient::fleet
