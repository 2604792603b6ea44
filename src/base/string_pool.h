// Interned strings: hot tables store a 32-bit StringId, never text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace plasmient {

struct StringId {
  std::uint32_t value = 0;  // 0 is the empty string
  friend bool operator==(StringId, StringId) = default;
  friend auto operator<=>(StringId, StringId) = default;
  bool empty() const { return value == 0; }
};

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view text);
  // The id of text if it was interned, else the empty id.
  StringId Find(std::string_view text) const;
  std::string_view Get(StringId id) const { return views_[id.value]; }
  std::size_t size() const { return views_.size(); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept;
  };
  // Text lives in large blocks so string_views stay valid as the pool grows.
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_used_ = 0;
  std::size_t block_size_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, std::uint32_t, Hash, std::equal_to<>> index_;
  std::size_t bytes_ = 0;
};

}  // namespace plasmient

template <>
struct std::hash<plasmient::StringId> {
  std::size_t operator()(plasmient::StringId id) const noexcept { return id.value; }
};
