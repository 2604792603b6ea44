#include "fleet/cluster_query.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "job/combine.h"
#include "store/job_rows.h"
#include "store/sqlite_store.h"
#include "store/testing/cluster_rows.h"

namespace plasmient::fleet {
namespace {

using store::testing::kMs;
using store::testing::Rank;
using store::testing::StoreWithRanks;

TEST(ClusterQueryTest, StoredRanksGiveTheFiguresOfTheRanksTogether) {
  const verdict::JobVerdict together = job::CombineRanks({Rank(0), Rank(1), Rank(2)}, {});
  ASSERT_EQ(together.stragglers.size(), 1u);
  ASSERT_EQ(together.stragglers[0].rank, 2);

  auto store = StoreWithRanks(3);
  auto stored = AnalyzeStoredCluster(*store, "j", {});
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->collective_rows, 18);
  EXPECT_EQ(stored->analyses, 3);
  const auto& job = stored->job;
  ASSERT_EQ(job.ranks.size(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(job.ranks[r].clock_offset_s, together.ranks[r].clock_offset_s, 1e-12) << r;
    EXPECT_NEAR(job.ranks[r].clock_offset_s, 1e-3 * static_cast<double>(r), 1e-12) << r;
    EXPECT_NEAR(job.ranks[r].caused_wait_s, together.ranks[r].caused_wait_s, 1e-12) << r;
    EXPECT_NEAR(job.ranks[r].run.wall_s, 0.1, 1e-12);
  }
  ASSERT_EQ(job.ranks[2].collectives.size(), 6u);
  EXPECT_EQ(job.ranks[2].collectives[0].group_rank, 2);  // what pairs a native send/recv's peer
  ASSERT_EQ(job.stragglers.size(), 1u);
  EXPECT_EQ(job.stragglers[0].rank, 2);
  EXPECT_NEAR(job.stragglers[0].caused_wait_s, 6 * 2 * 0.003, 1e-12);  // 2 ranks wait 3 ms, 6 times
  EXPECT_EQ(job.stragglers[0].kind, join::CollectiveKind::kAllReduce);

  // The stored kind is the parsed one, and the step's compute time the compute slice.
  auto kinds = store->Query("SELECT DISTINCT kind FROM rank_collectives");
  ASSERT_TRUE(kinds);
  ASSERT_EQ(kinds->rows.size(), 1u);
  EXPECT_EQ(kinds->rows[0][0], "all_reduce");
  auto compute = store->Query("SELECT compute_s, exposed_wait_s FROM cluster_steps WHERE rank = 0");
  ASSERT_TRUE(compute);
  EXPECT_DOUBLE_EQ(std::stod(compute->rows.at(0).at(0)), 0.015);

  std::string text = RenderStoredCluster(*stored, 2);
  EXPECT_NE(text.find("3 ranks from 3 analyses, 18 collective rows"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 2 arrives late at all_reduce"), std::string::npos) << text;
  EXPECT_NE(text.find("… 1 more ranks (--limit)"), std::string::npos) << text;
}

TEST(ClusterQueryTest, ARankAnalyzedAgainCountsOnceWithItsLatestRows) {
  auto store = StoreWithRanks(3, 100);
  // Rank 2 again, later, now on time: no straggler left.
  verdict::JobVerdict again;
  again.ranks = {Rank(2)};
  for (auto& c : again.ranks[0].collectives) c.start_ns = c.end_ns - 4 * kMs;
  store::JobContext c{"key2-late", "j", 500, "node2", {}, {}};
  ASSERT_TRUE(store->Record(store::BuildRows(again, c), "rank2-again"));
  auto stored = AnalyzeStoredCluster(*store, "j", {});
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->job.ranks.size(), 3u);
  EXPECT_EQ(stored->collective_rows, 18);
  EXPECT_TRUE(stored->job.stragglers.empty());
}

TEST(ClusterQueryTest, AJobWithoutRowsOrWithoutRankFiguresFailsInOneLine) {
  auto store = StoreWithRanks(2);
  auto none = LoadStoredCluster(*store, "other");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("job 'other': no per-rank cluster rows"), std::string::npos);
  ASSERT_TRUE(store->Query("DELETE FROM rank_verdicts WHERE rank = 1"));
  auto missing = LoadStoredCluster(*store, "j");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("rank 1 has cluster rows but no rank_verdicts row"),
            std::string::npos);
}

TEST(ClusterQueryTest, TheWatchSeesAJobWhenItsRowsChangeAndItsStragglerIsNamed) {
  auto store = StoreWithRanks(3);
  ClusterWatchState seen;
  auto first = ChangedClusterJobs(*store, 0, seen);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, std::vector<std::string>{"j"});
  auto stored = AnalyzeStoredCluster(*store, "j", {});
  ASSERT_TRUE(stored) << stored.error().message;
  ASSERT_EQ(stored->job.stragglers.size(), 1u);
  EXPECT_EQ(stored->job.stragglers[0].rank, 2);
  EXPECT_NEAR(stored->job.stragglers[0].caused_wait_s, 0.036, 1e-12);
  auto unchanged = ChangedClusterJobs(*store, 0, seen);
  ASSERT_TRUE(unchanged);
  EXPECT_TRUE(unchanged->empty());
  auto later = ChangedClusterJobs(*store, 1'000'000, seen);  // rows older than since_ns
  ASSERT_TRUE(later);
  EXPECT_TRUE(later->empty());
}

}  // namespace
}  // namespace plasmient::fleet
