#include "fleet/fleet_query.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "store/clickhouse_store.h"
#include "store/job_rows.h"
#include "store/sqlite_store.h"
#include "store/testing/test_job.h"
#include "whatif/levers.h"

namespace plasmient::fleet {
namespace {

TEST(FleetQueryTest, ParseTime) {
  const std::int64_t now = 1'000'000 * 1'000'000'000ll;
  EXPECT_EQ(*ParseTime("1764460800", now), 1764460800ll * 1'000'000'000);
  EXPECT_EQ(*ParseTime("2026-11-30", now), 1795996800ll * 1'000'000'000);
  EXPECT_EQ(*ParseTime("2026-11-30T01:00:00Z", now), (1795996800ll + 3600) * 1'000'000'000);
  EXPECT_EQ(*ParseTime("24h", now), now - 86400ll * 1'000'000'000);
  EXPECT_EQ(*ParseTime("7d", now), now - 7 * 86400ll * 1'000'000'000);
  EXPECT_FALSE(ParseTime("yesterday", now));
  EXPECT_FALSE(ParseTime("2026-13-45x", now));
}

class FleetQueryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("plasmient_fq_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_ = std::move(*store::SqliteStore::Open((dir_ / "s.sqlite").string()));
    for (int i = 0; i < 3; ++i) {
      auto job = store::testing::MakeJob();
      // Job i wastes i+1 times as much in its GEMM.
      for (auto& r : job.ranks) r.top_kernels[0].lost_s = 360.0 * (i + 1);
      job.ranks[0].top_kernels.push_back(job.ranks[0].top_kernels[0]);
      job.ranks[0].top_kernels[1].name = "elementwise";
      job.ranks[0].top_kernels[1].lost_s = 3600;
      store::JobContext c;
      c.job_key = "k" + std::to_string(i);
      c.job_id = i < 2 ? "trainA" : "trainB";
      c.at_ns = (i + 1) * 1'000'000'000ll;
      c.host = "h";
      c.labels = {{"user", i == 0 ? "ann" : "bob"}};
      ASSERT_TRUE(store_->Record(store::BuildRows(job, c), c.job_key));
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  store::QueryResult Run(const FleetQuery& q) {
    auto r = store_->Query(BuildSql(q, *store_));
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : store::QueryResult{};
  }
  std::filesystem::path dir_;
  std::unique_ptr<store::SqliteStore> store_;
};

TEST_F(FleetQueryStoreTest, TopKernelsByWastedGpuHours) {
  FleetQuery q;
  auto r = Run(q);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.columns[0], "kernel");
  EXPECT_EQ(r.rows[0][0], "elementwise");  // 3 analyses × 1 h
  EXPECT_DOUBLE_EQ(std::stod(r.rows[0][1]), 3.0);
  EXPECT_EQ(r.rows[1][0], "sm90_gemm");  // 2 ranks × (0.1 + 0.2 + 0.3) h
  EXPECT_DOUBLE_EQ(std::stod(r.rows[1][1]), 1.2);
  EXPECT_EQ(r.rows[1][3], "60");  // calls: 2 ranks × 3 analyses × 10
  q.by_gpu_hours = true;
  auto by_time = Run(q);
  ASSERT_EQ(by_time.rows.size(), 2u);
  EXPECT_EQ(by_time.rows[0][0], "sm90_gemm");  // 6 × 0.5 s against 3 × 0.5 s
}

TEST_F(FleetQueryStoreTest, TopLayersAddsModuleTypesAcrossJobs) {
  FleetQuery q;
  q.question = FleetQuestion::kTopLayers;
  auto r = Run(q);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.columns[0], "layer");
  EXPECT_EQ(r.rows[0][0], "Attention");  // 3 analyses × 1.8 s lost
  EXPECT_DOUBLE_EQ(std::stod(r.rows[0][1]), 3 * 1.8 / 3600);
  EXPECT_DOUBLE_EQ(std::stod(r.rows[0][3]), 0.1);  // achieved: Σ useful / Σ GPU time
  EXPECT_EQ(r.rows[0][4], "6");                    // instances: 2 per analysis
  EXPECT_EQ(r.rows[0][6], "3");                    // analyses
  EXPECT_EQ(r.rows[1][0], "Net");
  q.by_gpu_hours = true;
  auto by_time = Run(q);
  ASSERT_EQ(by_time.rows.size(), 3u);
  EXPECT_EQ(by_time.rows[0][0], "Net");  // 3 × 3 s against 3 × 2 s
  EXPECT_DOUBLE_EQ(std::stod(by_time.rows[0][2]), 9.0 / 3600);
}

TEST_F(FleetQueryStoreTest, SinceFiltersByAnalysisTime) {
  FleetQuery q;
  q.question = FleetQuestion::kTopJobs;
  q.since_ns = 2'000'000'000;
  auto r = Run(q);
  ASSERT_EQ(r.rows.size(), 2u);
  // Each analysis wastes 2.5 GPU-seconds; trainA keeps one analysis after the cut.
  EXPECT_DOUBLE_EQ(std::stod(r.rows[0][1]), 2.5 / 3600);
  EXPECT_EQ(r.rows[0][4], "1");
}

TEST_F(FleetQueryStoreTest, JobIsABoundValueNotSqlText) {
  FleetQuery q;
  q.question = FleetQuestion::kTopJobs;
  q.job = "trainB";
  auto r = Run(q);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], "trainB");
  // A quote in --job used to end the SQL string literal: the query failed to prepare.
  q.job = "o'brien\\'; DROP TABLE jobs; --";
  EXPECT_TRUE(Run(q).rows.empty());
  q.job = "";
  EXPECT_EQ(Run(q).rows.size(), 2u);  // trainA and trainB: the table is still there
}

TEST_F(FleetQueryStoreTest, TiesComeOutInTheGroupingKeysOrder) {
  // Identical jobs tie on every figure; ClickHouse returns ties in whatever order its parts give,
  // so each ranking ends in its grouping key.
  const std::pair<FleetQuestion, std::string_view> cases[] = {
      {FleetQuestion::kTopKernels, "DESC, name LIMIT"},
      {FleetQuestion::kTopOps, "DESC, name LIMIT"},
      {FleetQuestion::kTopLayers, "DESC, type LIMIT"},
      {FleetQuestion::kTopJobs, "DESC, job_id LIMIT"},
      {FleetQuestion::kTopUsers, "DESC, user_label LIMIT"},
      {FleetQuestion::kStragglers, "DESC, job_id, straggler_rank LIMIT"}};
  for (const auto& [question, tail] : cases) {
    FleetQuery q;
    q.question = question;
    std::string sql = BuildSql(q, *store_).sql;
    EXPECT_NE(sql.find(tail), std::string::npos) << sql;
  }
}

TEST(FleetQueryTest, ClickHouseGetsEachValueQuotedOnce) {
  auto sql = store::BindClickHouseParams(
      {"SELECT 1 FROM t WHERE job_id = :job AND x = ':job'", {{":job", "o'b\\c"}}});
  ASSERT_TRUE(sql) << sql.error().message;
  // The value's ' and \ are escaped; a ':job' inside a string literal is left alone.
  EXPECT_EQ(*sql, "SELECT 1 FROM t WHERE job_id = 'o\\'b\\\\c' AND x = ':job'");
  EXPECT_FALSE(store::BindClickHouseParams({"SELECT :other", {{":job", "a"}}}));
}

TEST_F(FleetQueryStoreTest, UsersTrendAndStragglers) {
  FleetQuery q;
  q.question = FleetQuestion::kTopUsers;
  auto users = Run(q);
  ASSERT_EQ(users.rows.size(), 2u);
  EXPECT_EQ(users.rows[0][0], "bob");
  EXPECT_EQ(users.rows[0][4], "2");
  q.question = FleetQuestion::kTrend;
  q.job = "trainA";
  auto trend = Run(q);
  ASSERT_EQ(trend.rows.size(), 2u);
  EXPECT_EQ(trend.rows[0][1], "1000000000");
  EXPECT_DOUBLE_EQ(std::stod(trend.rows[0][2]), 0.375);
  q.question = FleetQuestion::kStragglers;
  q.job.clear();
  auto s = Run(q);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0][0], "trainA");
  EXPECT_EQ(s.rows[0][1], "1");  // rank 1 arrives last
  EXPECT_DOUBLE_EQ(std::stod(s.rows[0][2]),
                   0.4);         // the cluster layer's caused wait, the largest of 2 analyses
  EXPECT_EQ(s.rows[0][5], "2");  // analyses
  std::string table = FormatTable(trend);
  EXPECT_NE(table.find("1970-01-01T00:00:01Z"), std::string::npos) << table;
  EXPECT_NE(table.find("0.375"), std::string::npos);
}

// --top jobs --by recoverable-gpu-hours: the lever's rows only, summed per job, in GPU-hours and
// at each analysis's price.
TEST(FleetLeverQueryTest, RecoverableGpuHoursSumTheLeversRowsPerJob) {
  const auto dir = std::filesystem::temp_directory_path() / ("plasmient_fl_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto store = std::move(*store::SqliteStore::Open((dir / "s.sqlite").string()));
  struct Lever {
    const char* job;
    const char* lever;
    double value, recoverable_s, price;
  };
  const Lever levers[] = {{"trainA", "overlap-comm", 0, 3600, 2}, {"trainA", "overlap-comm", 0, 1800, 3},
                          {"trainB", "overlap-comm", 0, 9000, 2}, {"trainA", "batch-scale", 2, 72000, 2},
                          {"trainA", "batch-scale", 4, 36000, 2}, {"trainB", "cuda-graphs", 0, 360, 2}};
  for (std::size_t i = 0; i < std::size(levers); ++i) {
    store::JobContext c{.job_key = "k" + std::to_string(i), .job_id = levers[i].job, .at_ns = 1, .host = "h"};
    store::Batch b =
        store::BuildRows(store::testing::MakeJob(), c);  // the store records an analysis by its jobs row
    ASSERT_TRUE(b[store::TableId::kLeverProjections].empty()) << "no tables, no lever rows";
    store::Row r = Common(c);
    for (store::Cell cell : std::initializer_list<store::Cell>{
             std::string(levers[i].lever), levers[i].value, std::int64_t{8}, 100000.0, 90000.0, 1.1,
             levers[i].recoverable_s, std::int64_t{i == 4}, levers[i].price}) {
      r.push_back(cell);
    }
    ASSERT_EQ(r.size(), Table(store::TableId::kLeverProjections).columns.size());
    b[store::TableId::kLeverProjections].push_back(r);
    ASSERT_TRUE(store->Record(b, c.job_key));
  }
  FleetQuery q{.question = FleetQuestion::kTopJobs, .by_recoverable = true};
  auto r = store->Query(BuildSql(q, *store));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0][0], "trainB");  // 2.5 GPU-h against trainA's 1.5
  EXPECT_DOUBLE_EQ(std::stod(r->rows[0][1]), 2.5);
  EXPECT_DOUBLE_EQ(std::stod(r->rows[1][1]), 1.5);
  EXPECT_DOUBLE_EQ(std::stod(r->rows[1][2]), 1 * 2 + 0.5 * 3);  // each analysis at its own price
  q.lever = "batch-scale";
  q.lever_value = 4;
  r = store->Query(BuildSql(q, *store));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::stod(r->rows[0][1]), 10);
  EXPECT_EQ(r->rows[0][4], "1");  // out of the trusted range

  // bill --whatif: each lever's ranking, per job in the first lever's order, the lever named.
  const whatif::LeverKey asked[] = {{"overlap-comm", 0}, {"batch-scale", 4}, {"cuda-graphs", 0}};
  auto bill = QueryLeverBill(*store, FleetQuery{.question = FleetQuestion::kTrend}, asked);
  ASSERT_TRUE(bill) << bill.error().message;
  ASSERT_EQ(bill->columns.size(), 7u);
  EXPECT_EQ(bill->columns[1], "lever");
  EXPECT_EQ(bill->columns[3], "recoverable_spend");
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& row : bill->rows) order.emplace_back(row[0], row[1]);
  const std::vector<std::pair<std::string, std::string>> expected = {{"trainB", "overlap-comm"},
                                                                     {"trainB", "cuda-graphs"},
                                                                     {"trainA", "overlap-comm"},
                                                                     {"trainA", "batch-scale=4"}};
  EXPECT_EQ(order, expected);
  EXPECT_DOUBLE_EQ(std::stod(bill->rows[1][2]), 0.1);  // trainB's cuda-graphs: 360 s
  EXPECT_DOUBLE_EQ(std::stod(bill->rows[1][3]), 0.2);  // at $2
  EXPECT_DOUBLE_EQ(std::stod(bill->rows[3][3]), 20);   // trainA's batch-scale 4: 10 GPU-h at $2
  auto one = QueryLeverBill(*store, FleetQuery{.job = "trainA"}, asked);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->rows.size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(FleetLeverQueryTest, ParseLever) {
  auto words = [](std::initializer_list<std::string> w) { return std::vector<std::string>(w); };
  EXPECT_EQ(whatif::ParseLever(words({"overlap-comm"}))->name, "overlap-comm");
  EXPECT_EQ(whatif::ParseLever(words({"cuda-graphs"}))->value, 0);
  EXPECT_EQ(whatif::ParseLever(words({"batch-scale", "4"}))->value, 4);
  EXPECT_EQ(whatif::ParseLever(words({"microbatches", "16"}))->value, 16);
  EXPECT_FALSE(whatif::ParseLever(words({})));
  EXPECT_FALSE(whatif::ParseLever(words({"faster-gpus"})));
  EXPECT_FALSE(whatif::ParseLever(words({"batch-scale"})));
  EXPECT_FALSE(whatif::ParseLever(words({"batch-scale", "-2"})));
  EXPECT_FALSE(whatif::ParseLever(words({"batch-scale", "2x"})));
  EXPECT_FALSE(whatif::ParseLever(words({"microbatches", "2.5"})));
  EXPECT_FALSE(whatif::ParseLever(words({"overlap-comm", "1"})));
  EXPECT_NE(whatif::ParseLever(words({"faster-gpus"}), "--whatif").error().message.find("--whatif"),
            std::string::npos);
}

TEST(FleetLeverQueryTest, ParseLeverList) {
  auto levers = whatif::ParseLeverList("overlap-comm,batch-scale=4,microbatches=16,overlap-comm", "--whatif");
  ASSERT_TRUE(levers) << levers.error().message;
  ASSERT_EQ(levers->size(), 3u);  // the repeat dropped
  EXPECT_EQ(whatif::LeverLabel((*levers)[0]), "overlap-comm");
  EXPECT_EQ(whatif::LeverLabel((*levers)[1]), "batch-scale=4");
  EXPECT_EQ((*levers)[2].value, 16);
  for (std::string_view bad :
       {"", ",", "batch-scale", "batch-scale=", "overlap-comm=1", "faster", "microbatches=2.5"}) {
    auto r = whatif::ParseLeverList(bad, "--whatif");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("--whatif"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace plasmient::fleet
