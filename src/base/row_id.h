// A reference to a row of one table (or an entry of one index): a strong type per table, so a
// CpuOps row cannot be passed where an ApiCalls row is meant, and "none" is a state of the type
// rather than a bare -1 beside the ids a source writes (those are model::kNoId, int64).
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>

#include "base/result.h"

namespace plasmient {

template <typename Tag>
class RowId {
 public:
  constexpr RowId() = default;  // none
  // From a row number; it must be a row (0 to the int32 maximum), never "none" spelled as -1.
  explicit RowId(std::integral auto row) : value_(static_cast<std::int32_t>(row)) {
    PLASMIENT_CHECK(std::cmp_greater_equal(row, 0) && std::cmp_less_equal(row, kMax));
  }
  static constexpr RowId None() { return {}; }

  constexpr bool has_value() const { return value_ >= 0; }
  // The row, for indexing its table; checked: asking a "none" for its row is a bug.
  std::size_t index() const {
    PLASMIENT_CHECK(has_value());
    return static_cast<std::size_t>(value_);
  }
  // The row, or -1 for none: for sinks that write the reference as a number.
  constexpr std::int32_t value_or_minus_one() const { return value_; }

  friend constexpr bool operator==(RowId, RowId) = default;
  friend constexpr auto operator<=>(RowId, RowId) = default;

 private:
  static constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  std::int32_t value_ = -1;
};

}  // namespace plasmient

template <typename Tag>
struct std::hash<plasmient::RowId<Tag>> {
  std::size_t operator()(plasmient::RowId<Tag> id) const noexcept {
    return std::hash<std::int32_t>{}(id.value_or_minus_one());
  }
};
