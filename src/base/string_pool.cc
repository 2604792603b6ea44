#include "base/string_pool.h"

#include <algorithm>
#include <cstring>

namespace plasmient {

namespace {
constexpr std::size_t kBlockBytes = 1 << 20;
}  // namespace

std::size_t StringPool::Hash::operator()(std::string_view s) const noexcept {
  // Eight bytes per step, four independent lanes: kernel names run to hundreds of bytes and
  // every ingested row interns one, so a hash bound by one multiply chain shows in ingest
  // profiles. Ids are given in insertion order, so the hash never changes what is stored.
  constexpr std::uint64_t kMul[4] = {0xFF51AFD7ED558CCDull, 0xC4CEB9FE1A85EC53ull, 0x9E3779B97F4A7C15ull,
                                     0xD6E8FEB86659FD93ull};
  std::uint64_t lane[4] = {0x9E3779B97F4A7C15ull ^ (s.size() * 0xC2B2AE3D27D4EB4Full), 0x2545F4914F6CDD1Dull,
                           0x6A09E667F3BCC909ull, 0xBB67AE8584CAA73Bull};
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 32; p += 32, n -= 32) {
    for (std::size_t k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * kMul[k];
      lane[k] ^= lane[k] >> 32;
    }
  }
  std::uint64_t h = lane[0] ^ (lane[1] * kMul[2]) ^ (lane[2] * kMul[3]) ^ (lane[3] * kMul[0]);
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  // The last bytes in at most two loads (overlapping what was hashed, or each other): copied
  // byte by byte into a word, they stalled the load that read the word back.
  std::uint64_t tail = 0;
  if (s.size() >= 8) {
    std::memcpy(&tail, s.data() + s.size() - 8, 8);
  } else if (n >= 4) {
    std::uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    tail = lo | (static_cast<std::uint64_t>(hi) << 32);
  } else if (n != 0) {
    tail = static_cast<unsigned char>(p[0]) |
           (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8) |
           (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16);
  }
  h = (h ^ tail) * 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 29;
  return static_cast<std::size_t>(h);
}

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view{}, 0);
}

StringId StringPool::Intern(std::string_view text) {
  if (text.empty()) return StringId{};  // most rows leave several text columns empty
  if (auto it = index_.find(text); it != index_.end()) return StringId{it->second};
  if (block_used_ + text.size() > block_size_) {
    block_size_ = std::max(kBlockBytes, text.size());
    // Not zeroed: a trace's strings fill a few KB of a block, and zeroing it all faulted in a
    // whole block of fresh pages per trace (a job reads a StringPool per rank).
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_size_));
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
