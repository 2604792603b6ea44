#include "base/string_pool.h"

#include <algorithm>
#include <cstring>

namespace plasmient {

namespace {
constexpr std::size_t kBlockBytes = 1 << 20;
}  // namespace

std::size_t StringPool::Hash::operator()(std::string_view s) const noexcept {
  // FNV-1a, 64-bit: short names dominate, and this is cheap and well spread for them.
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return static_cast<std::size_t>(h ^ (h >> 29));
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
