#include "cluster/cluster_verdict.h"

#include <gtest/gtest.h>

namespace plasmient::cluster {
namespace {

using verdict::CollectiveInstance;

constexpr TimeNs kMs = kNsPerMs;

// Four ranks, ten steps of one all-reduce; rank 3 arrives 2 ms late in steps 0..8; rank 2's clock
// runs 40 ms ahead.
JobVerdict StragglerJob() {
  JobVerdict job;
  for (int r = 0; r < 4; ++r) {
    RankVerdict v;
    v.rank = r;
    TimeNs offset = r == 2 ? 40 * kMs : 0;
    v.run.start_ns = offset;
    v.run.end_ns = offset + kNsPerS;
    v.run.wall_s = 1.0;
    for (int step = 0; step < 10; ++step) {
      TimeNs arrival = step * 100 * kMs + (r == 3 && step < 9 ? 2 * kMs : 0);
      CollectiveInstance c;
      c.group = "0";
      c.group_ranks = "[0, 1, 2, 3]";
      c.group_size = 4;
      c.seq = step;
      c.kind = "allreduce";
      c.bytes = 64 << 20;
      c.step = step;
      c.start_ns = arrival + offset;
      c.end_ns = step * 100 * kMs + (step < 9 ? 2 * kMs : 0) + kMs + offset;
      v.collectives.push_back(c);
    }
    job.job.Add(v.run);
    job.ranks.push_back(std::move(v));
  }
  return job;
}

TEST(ClusterVerdictTest, FillsRankFiguresStragglersAndAFixNamingTheRank) {
  JobVerdict job = StragglerJob();
  job.fixes.push_back({Loss::kHostBoundIdle, 0.5, "use CUDA graphs", {}});
  AddClusterFigures(job, {});
  EXPECT_NEAR(job.ranks[2].clock_offset_s, 0.040, 1e-12);
  EXPECT_EQ(job.job.start_ns, 0);  // rank 2's window, 40 ms ahead, no longer stretches the job
  EXPECT_EQ(job.job.end_ns, kNsPerS);
  EXPECT_TRUE(job.ranks[2].clock_aligned);
  EXPECT_NEAR(job.ranks[0].wait_on_peers_s, 0.018, 1e-12);
  EXPECT_NEAR(job.ranks[3].caused_wait_s, 0.054, 1e-12);
  EXPECT_EQ(job.ranks[3].collectives.size(), 10u);  // handed back after the analysis
  ASSERT_EQ(job.stragglers.size(), 1u);
  EXPECT_EQ(job.stragglers[0].rank, 3);
  EXPECT_FALSE(job.collectives.empty());
  EXPECT_TRUE(job.pipeline.empty());
  EXPECT_TRUE(job.job_problems.empty());
  ASSERT_EQ(job.fixes.size(), 2u);
  EXPECT_EQ(job.fixes[0].loss, Loss::kHostBoundIdle);  // still sorted by fraction
  const Fix& f = job.fixes[1];
  EXPECT_EQ(f.loss, Loss::kExposedCommunication);
  EXPECT_NEAR(f.fraction, 0.054 / 4, 1e-12);
  EXPECT_EQ(f.action.rfind("rank 3 arrives late at all_reduce in 9 of 10 steps (2.0 ms each)", 0), 0u)
      << f.action;
  EXPECT_EQ(f.culprits, (std::vector<std::string>{"rank 3"}));
}

TEST(ClusterVerdictTest, OneRankLeavesTheJobUntouched) {
  JobVerdict job = StragglerJob();
  job.ranks.resize(1);
  AddClusterFigures(job, {});
  EXPECT_EQ(job.ranks[0].collectives.size(), 10u);
  EXPECT_FALSE(job.ranks[0].clock_aligned);
  EXPECT_TRUE(job.stragglers.empty());
  EXPECT_TRUE(job.fixes.empty());
}

TEST(ClusterVerdictTest, DuplicateRanksAreReportedNotMerged) {
  JobVerdict job = StragglerJob();
  job.ranks.insert(job.ranks.begin() + 2, job.ranks[1]);
  AddClusterFigures(job, {});
  ASSERT_FALSE(job.job_problems.empty());
  EXPECT_EQ(job.job_problems[0], "rank 1 given more than once: later inputs ignored");
  EXPECT_EQ(job.quality.Get(model::Dq::kDuplicateRank), 1);
  EXPECT_EQ(job.ranks[2].wait_on_peers_s, 0);  // the duplicate gets no figures
  EXPECT_NEAR(job.ranks[1].wait_on_peers_s, 0.018, 1e-12);
}

}  // namespace
}  // namespace plasmient::cluster
