#include "store/clickhouse_rollups.h"

#include <cctype>
#include <set>

#include <gtest/gtest.h>

#include "store/clickhouse_store.h"

namespace plasmient::store {
namespace {

// The identifiers an expression reads ("sum(wall_s - useful_s)" → wall_s, useful_s).
std::set<std::string> ColumnsRead(std::string_view expr) {
  std::set<std::string> out;
  std::size_t i = 0;
  while (i < expr.size()) {
    if (!std::isalpha(static_cast<unsigned char>(expr[i])) && expr[i] != '_') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[end])) || expr[end] == '_'))
      ++end;
    if (end >= expr.size() || expr[end] != '(') out.emplace(expr.substr(i, end - i));  // not a function
    i = end;
  }
  return out;
}

TEST(ClickHouseRollupsTest, EveryExpressionReadsColumnsOfItsRawTable) {
  for (const auto& r : Rollups()) {
    std::set<std::string> source;
    for (const auto& c : Table(r.source).columns) source.emplace(c.name);
    std::set<std::string> names;
    for (const auto* columns : {&r.keys, &r.values}) {
      for (const auto& c : *columns) {
        EXPECT_TRUE(names.emplace(c.name).second) << r.name << ": " << c.name << " twice";
        for (const auto& read : ColumnsRead(c.expr)) {
          EXPECT_TRUE(source.contains(read))
              << r.name << "." << c.name << " reads " << read << ", not a column of " << Table(r.source).name;
        }
      }
    }
    // ClickHouse substitutes an alias for the column of that name anywhere in the SELECT: no
    // column's name may be one that another column's expression reads.
    for (const auto* columns : {&r.keys, &r.values}) {
      for (const auto& c : *columns) {
        for (const auto* others : {&r.keys, &r.values}) {
          for (const auto& o : *others) {
            if (&o == &c) continue;
            EXPECT_FALSE(ColumnsRead(o.expr).contains(std::string(c.name)))
                << r.name << ": " << o.expr << " reads " << c.name;
          }
        }
      }
    }
    ASSERT_FALSE(r.keys.empty());
    EXPECT_EQ(r.keys.front().name, "at_ns") << r.name << ": the hour comes first (the window reads it)";
    EXPECT_EQ(r.values.back().name, "analyses") << r.name;
  }
}

TEST(ClickHouseRollupsTest, TheViewsSelectGroupsByTheKeys) {
  const auto& k = Rollup(RollupId::kKernelsByHour);
  EXPECT_EQ(
      RollupSelectSql(k, "p.kernel_aggregates_local"),
      "SELECT intDiv(at_ns, 3600000000000) * 3600000000000 AS at_ns, job_id, name, sum(lost_s) AS lost_s, "
      "sum(time_s) AS time_s, sum(calls) AS calls, uniqExact(job_key) AS analyses FROM "
      "p.kernel_aggregates_local GROUP BY at_ns, job_id, name");
  EXPECT_EQ(RollupEngineSql(k), "SummingMergeTree() ORDER BY (at_ns, job_id, name)");
  EXPECT_EQ(RollupEngineSql(Rollup(RollupId::kStragglersByHour)),
            "AggregatingMergeTree() ORDER BY (at_ns, job_id, rank)");
  EXPECT_NE(RollupColumnsSql(Rollup(RollupId::kStragglersByHour))
                .find("caused_wait_s AggregateFunction(max, Float64)"),
            std::string::npos);
}

TEST(ClickHouseRollupsTest, RawRowsGetATtlWhereTheServerHasOne) {
  EXPECT_EQ(RawTableTtlSql("18.16.1", 30), "");  // Debian 12's: no TTL before 19.6
  EXPECT_EQ(RawTableTtlSql("19.5.4.22", 30), "");
  EXPECT_EQ(RawTableTtlSql("19.6.2.11", 30), " TTL toDateTime(intDiv(at_ns, 1000000000)) + INTERVAL 30 DAY");
  EXPECT_EQ(RawTableTtlSql("23.8.2.7", 7), " TTL toDateTime(intDiv(at_ns, 1000000000)) + INTERVAL 7 DAY");
  EXPECT_EQ(RawTableTtlSql("23.8.2.7", 0), "");  // no retention asked
  EXPECT_EQ(RawTableTtlSql("garbage", 30), "");
}

}  // namespace
}  // namespace plasmient::store
