#include "base/row_id.h"

#include <gtest/gtest.h>

#include <map>
#include <type_traits>
#include <unordered_set>

namespace plasmient {
namespace {

using ARow = RowId<struct ATag>;
using BRow = RowId<struct BTag>;

// One table's row is not another's, and a bare integer is not a row without saying so.
static_assert(!std::is_convertible_v<ARow, BRow>);
static_assert(!std::is_convertible_v<int, ARow>);
static_assert(!std::is_convertible_v<ARow, std::size_t>);
static_assert(sizeof(ARow) == sizeof(std::int32_t));

TEST(RowId, NoneByDefaultAndARowWhenGiven) {
  ARow none;
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(none, ARow::None());
  EXPECT_EQ(none.value_or_minus_one(), -1);
  ARow row(std::size_t{7});
  EXPECT_TRUE(row.has_value());
  EXPECT_EQ(row.index(), 7u);
  EXPECT_EQ(ARow(std::int32_t{0}).index(), 0u);
  EXPECT_EQ(ARow(2'147'483'647LL).index(), 2'147'483'647u);
}

TEST(RowId, NoneOrdersBeforeEveryRowAsMinusOneDid) {
  EXPECT_LT(ARow(), ARow(0));
  EXPECT_LT(ARow(3), ARow(4));
  EXPECT_NE(ARow(3), ARow(4));
  std::map<ARow, int> by_row{{ARow(2), 2}, {ARow(), -1}, {ARow(0), 0}};
  EXPECT_EQ(by_row.begin()->first, ARow());
  EXPECT_EQ(std::prev(by_row.end())->first, ARow(2));
}

TEST(RowId, HashesAsItsRow) {
  std::unordered_set<ARow> rows{ARow(1), ARow(1), ARow(), ARow(9)};
  EXPECT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows.contains(ARow(9)));
  EXPECT_FALSE(rows.contains(ARow(2)));
  EXPECT_EQ(std::hash<ARow>{}(ARow(5)), std::hash<std::int32_t>{}(5));
}

TEST(RowIdDeathTest, NoneHasNoIndexAndMinusOneIsNoRow) {
  EXPECT_DEATH((void)ARow().index(), "internal invariant failed");
  EXPECT_DEATH((void)ARow(-1), "internal invariant failed");
  EXPECT_DEATH((void)ARow(std::int64_t{1} << 31), "internal invariant failed");
}

}  // namespace
}  // namespace plasmient
