// Memoizes a predicate over interned names: traces repeat a few thousand kernel names millions
// of times, so a name is classified once, not once per row.
#pragma once

#include <cstdint>
#include <vector>

#include "base/string_pool.h"

namespace plasmient {

template <typename Predicate>
class NameMemo {
 public:
  NameMemo(const StringPool& pool, Predicate predicate) : pool_(pool), predicate_(predicate) {}

  bool operator()(StringId id) {
    if (id.value >= memo_.size()) memo_.resize(pool_.size(), kUnknown);
    std::int8_t& m = memo_[id.value];
    if (m == kUnknown) m = predicate_(pool_.Get(id)) ? 1 : 0;
    return m == 1;
  }

 private:
  static constexpr std::int8_t kUnknown = -1;
  const StringPool& pool_;
  Predicate predicate_;
  std::vector<std::int8_t> memo_;
};

}  // namespace plasmient
