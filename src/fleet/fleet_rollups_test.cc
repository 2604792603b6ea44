// The fleet's questions over ClickHouse's rollups (store/clickhouse_rollups.h): the same columns as
// over the raw tables, and windows rounded out to the hours they meet.
#include "fleet/fleet_query.h"

#include <limits>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "store/clickhouse_rollups.h"
#include "store/schema.h"

namespace plasmient::fleet {
namespace {

using store::QueryableStore;
using store::QueryResult;
using store::RollupId;

using store::SqlQuery;
using store::TableId;

// Answers nothing: only the SQL that BuildSql writes for it is looked at.
class NamesOnlyStore final : public QueryableStore {
 public:
  explicit NamesOnlyStore(bool rollups) : rollups_(rollups) {}
  std::string TableName(TableId id) const override {
    return "p." + std::string(store::Table(id).name) + " FINAL";
  }
  std::string RollupName(RollupId id) const override {
    return rollups_ ? "p." + std::string(store::Rollup(id).name) : std::string();
  }
  using QueryableStore::Query;
  Result<QueryResult> Query(const SqlQuery&) override { return Fail("no store"); }
  Status ForEachRow(const SqlQuery&, const QueryableStore::RowVisitor&) override { return Fail("no store"); }

 private:
  bool rollups_;
};

// The output columns of a SELECT: each "AS name" before the first FROM.
std::vector<std::string> OutputColumns(const std::string& sql) {
  std::string head = sql.substr(0, sql.find(" FROM "));
  std::vector<std::string> out;
  static const std::regex kAlias(R"( AS ([a-z_]+))");
  for (auto it = std::sregex_iterator(head.begin(), head.end(), kAlias); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

TEST(FleetRollupsTest, RollupAnswersHaveTheRawAnswersColumns) {
  NamesOnlyStore raw(false), rolled(true);
  for (auto question : {FleetQuestion::kTopKernels, FleetQuestion::kTopOps, FleetQuestion::kTopLayers,
                        FleetQuestion::kTopJobs, FleetQuestion::kTopUsers, FleetQuestion::kTopTeams,
                        FleetQuestion::kStragglers}) {
    for (bool recoverable : {false, true}) {
      if (recoverable && question != FleetQuestion::kTopJobs) continue;
      FleetQuery q;
      q.question = question;
      q.by_recoverable = recoverable;
      SqlQuery a = BuildSql(q, raw), b = BuildSql(q, rolled);
      EXPECT_NE(a.sql.find(" FINAL"), std::string::npos) << a.sql;
      EXPECT_EQ(b.sql.find(" FINAL"), std::string::npos) << b.sql;
      EXPECT_NE(b.sql.find("_by_hour"), std::string::npos) << b.sql;
      EXPECT_EQ(OutputColumns(a.sql), OutputColumns(b.sql)) << a.sql << "\n" << b.sql;
      EXPECT_EQ(a.params.size(), b.params.size());
    }
  }
}

TEST(FleetRollupsTest, TheWindowTakesEveryHourItMeets) {
  NamesOnlyStore rolled(true);
  FleetQuery q;
  q.question = FleetQuestion::kTopJobs;
  q.since_ns = store::kRollupBucketNs + 1;      // in the second hour
  q.until_ns = 3 * store::kRollupBucketNs + 1;  // just into the fourth
  std::string sql = BuildSql(q, rolled).sql;
  EXPECT_NE(sql.find("at_ns >= 3600000000000 AND at_ns < 14400000000000"), std::string::npos) << sql;
  q.since_ns = 2 * store::kRollupBucketNs;  // whole hours stay as they are
  q.until_ns = 3 * store::kRollupBucketNs;
  sql = BuildSql(q, rolled).sql;
  EXPECT_NE(sql.find("at_ns >= 7200000000000 AND at_ns < 10800000000000"), std::string::npos) << sql;
  q.until_ns = std::numeric_limits<std::int64_t>::max() - 5;  // no hour after it to round to: unbounded
  sql = BuildSql(q, rolled).sql;
  EXPECT_EQ(sql.find("at_ns <"), std::string::npos) << sql;
}

}  // namespace
}  // namespace plasmient::fleet
