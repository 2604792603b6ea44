#include "store/job_rows.h"

#include <gtest/gtest.h>

#include "base/bounded_name.h"

#include "job/combine.h"
#include "store/testing/test_job.h"

namespace plasmient::store {
namespace {

JobContext Context() {
  JobContext c;
  c.job_key = "abc";
  c.job_id = "train-7";
  c.at_ns = 1'700'000'000'000'000'000;
  c.host = "node1";
  c.labels = {{"user", "alice"}, {"team", "nlp"}, {"run", "x"}};
  c.inputs = {"rank0.json.gz", "rank1.json.gz"};
  return c;
}

TEST(JobRowsTest, EveryRowHasItsTableWidthAndTheCommonColumns) {
  Batch b = BuildRows(testing::MakeJob(), Context());
  EXPECT_EQ(b[TableId::kJobs].size(), 1u);
  EXPECT_EQ(b[TableId::kRankVerdicts].size(), 2u);
  EXPECT_EQ(b[TableId::kSteps].size(), 4u);
  EXPECT_EQ(b[TableId::kKernelAggregates].size(), 2u);
  EXPECT_EQ(b[TableId::kOpAggregates].size(), 2u);
  EXPECT_EQ(b[TableId::kRankCollectives].size(), 4u);
  EXPECT_EQ(b[TableId::kClusterRanks].size(), 2u);
  EXPECT_EQ(b[TableId::kClusterSteps].size(), 4u);
  EXPECT_EQ(b[TableId::kStragglers].size(), 1u);
  EXPECT_EQ(b[TableId::kBills].size(), 1u);
  EXPECT_EQ(b[TableId::kLayerTypes].size(), 3u);
  for (const auto& t : Tables()) {
    for (const auto& row : b[t.id]) {
      ASSERT_EQ(row.size(), t.columns.size()) << t.name;
      EXPECT_EQ(std::get<std::string>(row[0]), "abc");
      EXPECT_EQ(std::get<std::string>(row[1]), "train-7");
      for (std::size_t i = 0; i < row.size(); ++i) {
        auto want = t.columns[i].type;
        bool ok = want == ColumnType::kInt     ? std::holds_alternative<std::int64_t>(row[i])
                  : want == ColumnType::kFloat ? std::holds_alternative<double>(row[i])
                                               : std::holds_alternative<std::string>(row[i]);
        EXPECT_TRUE(ok) << t.name << "." << t.columns[i].name;
      }
    }
  }
  const Row& job = b[TableId::kJobs][0];
  EXPECT_EQ(std::get<std::string>(job[4]), "alice");
  EXPECT_EQ(std::get<std::string>(job[5]), "nlp");
  EXPECT_EQ(std::get<std::string>(job[6]), "user=alice,team=nlp,run=x");
  EXPECT_EQ(std::get<std::int64_t>(job[8]), 2);
  EXPECT_DOUBLE_EQ(std::get<double>(job[11]), 4.0);    // wall_s: GPU-seconds over both ranks
  EXPECT_DOUBLE_EQ(std::get<double>(job[12]), 1.5);    // useful_s
  EXPECT_DOUBLE_EQ(std::get<double>(job[14]), 0.375);  // achieved
}

TEST(JobRowsTest, BillRowCarriesTheObservedRate) {
  Batch b = BuildRows(testing::MakeJob(), Context());
  const TableSpec& t = Table(TableId::kBills);
  const Row& row = b[TableId::kBills][0];
  auto col = [&](std::string_view name) {
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      if (t.columns[i].name == name) return row[i];
    }
    ADD_FAILURE() << name;
    return Cell{};
  };
  EXPECT_EQ(std::get<std::int64_t>(col("gpus")), 2);
  EXPECT_DOUBLE_EQ(std::get<double>(col("spend_per_day")), 2 * 4.0 * 24);
  // achieved 0.375 against target 0.5: a quarter of the spend is addressable.
  EXPECT_DOUBLE_EQ(std::get<double>(col("addressable_per_day")), 2 * 4.0 * 24 * 0.25);
  EXPECT_DOUBLE_EQ(std::get<double>(col("spend_per_year")), 2 * 4.0 * 24 * 365);
}

TEST(JobRowsTest, LayerTypeRowsOnlyForJobsWithModuleRanges) {
  auto job = testing::MakeJob();
  Batch b = BuildRows(job, Context());
  const TableSpec& t = Table(TableId::kLayerTypes);
  const Row& row = b[TableId::kLayerTypes][1];  // Attention
  auto col = [&](std::string_view name) {
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      if (t.columns[i].name == name) return row[i];
    }
    ADD_FAILURE() << name;
    return Cell{};
  };
  EXPECT_EQ(std::get<std::string>(col("type")), "Attention");
  EXPECT_EQ(std::get<std::int64_t>(col("instances")), 2);
  EXPECT_DOUBLE_EQ(std::get<double>(col("lost_s")), 1.8);
  EXPECT_DOUBLE_EQ(std::get<double>(col("loss_memory_bound_s")), 1.8);
  EXPECT_DOUBLE_EQ(std::get<double>(col("achieved")), 0.1);
  EXPECT_EQ(std::get<std::string>(col("main_loss")), "memory_bound");
  EXPECT_EQ(std::get<std::string>(col("top_kernel")), "flash_fwd");
  // Only the catch-all node: the trace had no module ranges, and no row says otherwise.
  job.layers.nodes.erase(job.layers.nodes.begin());
  EXPECT_TRUE(BuildRows(job, Context())[TableId::kLayerTypes].empty());
}

// The stragglers table holds what the cluster layer names (as the job stage assembles it), nothing
// of its own.
TEST(JobRowsTest, StragglerRowsAreTheClusterLayers) {
  auto job = testing::MakeJob();
  const verdict::Straggler written = job.stragglers.at(0);
  job.stragglers.clear();
  job = job::CombineRanks(std::move(job.ranks), verdict::AnalyzeOptions{});
  ASSERT_EQ(job.stragglers.size(), 1u);  // MakeJob's hand-written straggler is the cluster's
  const verdict::Straggler& s = job.stragglers[0];
  EXPECT_EQ(s.rank, written.rank);
  EXPECT_NEAR(s.caused_wait_s, written.caused_wait_s, 1e-9);
  EXPECT_NEAR(s.capacity_fraction, written.capacity_fraction, 1e-9);
  EXPECT_NEAR(s.mean_late_s, written.mean_late_s, 1e-9);
  EXPECT_EQ(s.kind, written.kind);
  EXPECT_EQ(s.late_collectives, written.late_collectives);
  EXPECT_EQ(s.collectives, written.collectives);
  auto rows = BuildRows(job, Context())[TableId::kStragglers];
  ASSERT_EQ(rows.size(), 1u);
  const TableSpec& t = Table(TableId::kStragglers);
  auto col = [&](std::string_view name) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].name == name) return rows[0][i];
    ADD_FAILURE() << "no column " << name;
    return Cell{};
  };
  EXPECT_EQ(std::get<std::int64_t>(col("rank")), 1);
  EXPECT_EQ(std::get<std::string>(col("kind")), "all_reduce");
  EXPECT_NEAR(std::get<double>(col("caused_wait_s")), 0.4, 1e-9);
  EXPECT_NEAR(std::get<double>(col("capacity_fraction")), 0.1, 1e-9);
  EXPECT_EQ(std::get<std::int64_t>(col("late_collectives")), 2);
}

// Where the older duration-only rule and the cluster layer disagreed: two ranks that take turns
// arriving 0.2 s late, with their clocks 50 ms apart. The duration-only rule charged each
// collective's wait to its shorter kernel, writing a straggler row per collective (four, two for
// each rank); the cluster layer aligns the clocks and finds each rank caused 10% of capacity in
// waits, but neither stands out from the other (2 × the others' median): no straggler, no row.
TEST(JobRowsTest, RanksTakingTurnsLateAreNoStragglers) {
  auto job = testing::MakeJob();
  job.stragglers.clear();
  for (auto& r : job.ranks) {
    r.collectives.clear();
    const TimeNs skew = r.rank == 1 ? 50'000'000 : 0;
    r.run.start_ns += skew;
    r.run.end_ns += skew;
    for (std::int64_t seq = 0; seq < 4; ++seq) {
      join::CollectiveInstance c;
      c.group = "pg0";
      c.seq = seq;
      c.name = "allreduce";
      c.kind = join::CollectiveKind::kAllReduce;
      const bool late = (seq + r.rank) % 2 == 0;  // rank 0 late at 0 and 2, rank 1 at 1 and 3
      c.end_ns = skew + (seq + 1) * 400'000'000;
      c.start_ns = c.end_ns - (late ? 100'000'000 : 300'000'000);
      r.collectives.push_back(c);
    }
  }
  job = job::CombineRanks(std::move(job.ranks), verdict::AnalyzeOptions{});
  for (const auto& p : job.job_problems) ADD_FAILURE() << p;
  EXPECT_TRUE(job.stragglers.empty()) << "rank " << job.stragglers.at(0).rank;
  double caused = 0;
  for (const auto& r : job.ranks) caused += r.caused_wait_s;
  EXPECT_NEAR(caused, 4 * 0.2, 1e-9);  // the waits are there, 0.4 s charged to each rank
  EXPECT_NEAR(job.ranks[0].caused_wait_s, job.ranks[1].caused_wait_s, 1e-9);
  EXPECT_TRUE(BuildRows(job, Context())[TableId::kStragglers].empty());
}

TEST(JobRowsTest, ParseLabel) {
  auto l = ParseLabel("team=ml-infra");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->first, "team");
  EXPECT_EQ(l->second, "ml-infra");
  EXPECT_TRUE(ParseLabel("user="));
  EXPECT_FALSE(ParseLabel("=x"));
  EXPECT_FALSE(ParseLabel("novalue"));
  EXPECT_FALSE(ParseLabel("9lives=x"));
  EXPECT_FALSE(ParseLabel("a b=x"));
}

// A marker's 60 KB team= line is stored as at most 256 bytes (with the hash of the whole), its
// invalid bytes replaced; a key longer than 64 bytes is refused.
TEST(JobRowsTest, LabelValuesAreBoundedAndKeysCapped) {
  auto l = ParseLabel("team=" + std::string(60000, 'v'));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->second.size(), kMaxLabelBytes);
  EXPECT_EQ(l->second, BoundLabel(std::string(60000, 'v')));
  auto bad = ParseLabel(
      "user=u\xF8"
      "ser");
  ASSERT_TRUE(bad);
  EXPECT_TRUE(IsBoundedName(bad->second));
  EXPECT_TRUE(ParseLabel(std::string(kMaxLabelKeyBytes, 'k') + "=x"));
  EXPECT_FALSE(ParseLabel(std::string(kMaxLabelKeyBytes + 1, 'k') + "=x"));
}

}  // namespace
}  // namespace plasmient::store
