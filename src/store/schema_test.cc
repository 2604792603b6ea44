#include "store/schema.h"

#include <set>

#include <gtest/gtest.h>

namespace plasmient::store {
namespace {

TEST(SchemaTest, EveryTableStartsWithTheCommonColumnsAndNamesAreUnique) {
  ASSERT_EQ(Tables().size(), kTableCount);
  for (const auto& t : Tables()) {
    ASSERT_GE(t.columns.size(), 5u) << t.name;
    EXPECT_EQ(t.columns[0].name, "job_key");
    EXPECT_EQ(t.columns[1].name, "job_id");
    EXPECT_EQ(t.columns[2].name, "at_ns");
    EXPECT_EQ(t.columns[3].name, "host");
    std::set<std::string_view> names;
    for (const auto& c : t.columns) EXPECT_TRUE(names.insert(c.name).second) << t.name << "." << c.name;
    EXPECT_EQ(&Table(t.id), &t);
  }
}

TEST(SchemaTest, TsvRoundTripKeepsTabsNewlinesAndBackslashes) {
  const TableSpec& t = Table(TableId::kStragglers);
  Row row = {std::string("k\t1"),
             std::string("job\nwith\\odd"),
             std::int64_t{-42},
             std::string("h"),
             std::int64_t{7},
             std::string("all\\reduce\t"),
             0.1,
             1e-300,
             std::int64_t{1},
             std::int64_t{2},
             std::int64_t{0},
             12345.678};
  ASSERT_EQ(row.size(), t.columns.size());
  std::string line;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) line += '\t';
    AppendTsvCell(line, row[i]);
  }
  EXPECT_EQ(line.find('\n'), std::string::npos);
  Row back;
  ASSERT_TRUE(ParseTsvRow(line, t, back));
  EXPECT_EQ(back, row);
  EXPECT_FALSE(ParseTsvRow("a\tb", t, back));
}

TEST(SchemaTest, NonFiniteNumbersAreWrittenAsZero) {
  std::string s;
  AppendTsvCell(s, Cell{std::numeric_limits<double>::infinity()});
  EXPECT_EQ(s, "0");
}

}  // namespace
}  // namespace plasmient::store
