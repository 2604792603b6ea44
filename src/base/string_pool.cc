#include "base/string_pool.h"

#include <algorithm>
#include <cstring>

namespace plasmient {

namespace {
constexpr std::size_t kBlockBytes = 1 << 20;
}  // namespace

std::size_t StringPool::Hash::operator()(std::string_view s) const noexcept {
  // Eight bytes per step: kernel names run to hundreds of bytes and every ingested row
  // interns one, so a byte-at-a-time hash shows up in ingest profiles.
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (s.size() * 0xC2B2AE3D27D4EB4Full);
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  std::uint64_t tail = 0;
  if (n != 0) std::memcpy(&tail, p, n);
  h = (h ^ tail) * 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 29;
  return static_cast<std::size_t>(h);
}

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view{}, 0);
}

StringId StringPool::Intern(std::string_view text) {
  if (auto it = index_.find(text); it != index_.end()) return StringId{it->second};
  if (block_used_ + text.size() > block_size_) {
    block_size_ = std::max(kBlockBytes, text.size());
    blocks_.push_back(std::make_unique<char[]>(block_size_));
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  if (!text.empty()) std::memcpy(dst, text.data(), text.size());
  block_used_ += text.size();
  bytes_ += text.size();
  std::string_view stored(dst, text.size());
  auto id = static_cast<std::uint32_t>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return StringId{id};
}

StringId StringPool::Find(std::string_view text) const {
  auto it = index_.find(text);
  return it == index_.end() ? StringId{} : StringId{it->second};
}

}  // namespace plasmient
