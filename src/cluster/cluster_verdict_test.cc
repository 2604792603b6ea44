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
      c.name = "allreduce";
      c.kind = CollectiveKind::kAllReduce;
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

// The cluster layer's reading of the job's ranks, and its figures set into them, as the job stage
// does (job/combine.h).
ClusterReading Read(JobVerdict& job) {
  ClusterReading reading = ReadCluster(job.ranks, {});
  SetRankFigures(job.ranks, reading);
  return reading;
}

TEST(ClusterVerdictTest, FillsRankFiguresStragglersAndAFixNamingTheRank) {
  JobVerdict job = StragglerJob();
  const ClusterReading reading = Read(job);
  EXPECT_NEAR(job.ranks[2].clock_offset_s, 0.040, 1e-12);
  const auto extent = AlignedExtent(job.ranks);
  ASSERT_TRUE(extent);
  EXPECT_EQ(extent->first, 0);  // rank 2's window, 40 ms ahead, does not stretch the job
  EXPECT_EQ(extent->second, kNsPerS);
  EXPECT_TRUE(job.ranks[2].clock_aligned);
  EXPECT_NEAR(job.ranks[0].wait_on_peers_s, 0.018, 1e-12);
  EXPECT_NEAR(job.ranks[3].caused_wait_s, 0.054, 1e-12);
  EXPECT_EQ(job.ranks[3].collectives.size(), 10u);  // handed back after the analysis
  ASSERT_EQ(reading.stragglers.size(), 1u);
  EXPECT_EQ(reading.stragglers[0].rank, 3);
  EXPECT_FALSE(reading.collectives.empty());
  EXPECT_TRUE(reading.pipeline.empty());
  EXPECT_TRUE(reading.problems.empty());
  ASSERT_EQ(reading.fixes.size(), 1u);
  const Fix& f = reading.fixes[0];
  EXPECT_EQ(f.loss, Loss::kExposedCommunication);
  EXPECT_NEAR(f.fraction, 0.054 / 4, 1e-12);
  EXPECT_EQ(f.action.rfind("rank 3 arrives late at all_reduce in 9 of 10 steps (2.0 ms each)", 0), 0u)
      << f.action;
  EXPECT_EQ(f.culprits, (std::vector<std::string>{"rank 3"}));
}

// Rank 3's steps begin 2 ms late, its work as long as its peers': the fix says so, recovers
// nothing by evening out its work, and its label names the collective it holds up.
TEST(ClusterVerdictTest, ALateStartIsNamedAsSuchAndRecoversNothingFromWork) {
  JobVerdict job = StragglerJob();
  for (auto& r : job.ranks) {
    const TimeNs offset = r.rank == 2 ? 40 * kMs : 0;
    for (int step = 0; step < 10; ++step) {
      verdict::StepFigures s;
      s.number = step;
      s.figures.start_ns = step * 100 * kMs - 10 * kMs + (r.rank == 3 && step < 9 ? 2 * kMs : 0) + offset;
      r.steps.push_back(s);
    }
  }
  job.evidence.exposed_comm_s[static_cast<std::size_t>(verdict::CommFamily::kAllToAll)] =
      1;  // the job's dominant
  const ClusterReading reading = Read(job);
  ASSERT_EQ(reading.stragglers.size(), 1u);
  EXPECT_EQ(reading.stragglers[0].cause, "late_start");
  EXPECT_NEAR(reading.stragglers[0].late_start_s, 0.018, 1e-12);
  EXPECT_NEAR(reading.stragglers[0].slow_work_s, 0, 1e-12);
  ASSERT_EQ(reading.fixes.size(), 1u);
  const Fix& f = reading.fixes[0];
  EXPECT_NE(f.action.find("its step begins late"), std::string::npos) << f.action;
  EXPECT_EQ(f.action.find("even out its work"), std::string::npos) << f.action;
  EXPECT_NEAR(f.recoverable, 0, 1e-12);
  EXPECT_NE(f.evidence.find("18.0 ms is a late start and 0.0 ms slower work; late start (90% confidence)"),
            std::string::npos)
      << f.evidence;
  EXPECT_EQ(job.loss_label(Loss::kExposedCommunication), "exposed all-to-all wait");
  EXPECT_EQ(job.fix_label(f), "exposed all-reduce wait");
}

TEST(ClusterVerdictTest, NoStepsWithoutLatenessAreCounted) {
  verdict::Straggler s;
  s.rank = 5;
  s.kind = CollectiveKind::kAllReduce;
  s.steps = 1;  // it caused less wait than another rank in its one step
  s.late_collectives = 1;
  s.collectives = 4;
  s.slow_work_s = 0.001;
  s.cause = "slow_work";
  s.cause_steps = 1;
  s.confidence = 0.5;
  const Fix f = StragglerFix(s);
  EXPECT_EQ(f.action.find("in 0 of"), std::string::npos) << f.action;
  EXPECT_EQ(f.action.rfind("rank 5 arrives late at all_reduce at 1 of 4 (", 0), 0u) << f.action;
  EXPECT_NE(f.evidence.find("(50% confidence: the evidence is one step)"), std::string::npos) << f.evidence;
}

TEST(ClusterVerdictTest, OneRankLeavesTheJobUntouched) {
  JobVerdict job = StragglerJob();
  job.ranks.resize(1);
  const ClusterReading reading = Read(job);
  EXPECT_EQ(job.ranks[0].collectives.size(), 10u);
  EXPECT_FALSE(job.ranks[0].clock_aligned);
  EXPECT_FALSE(AlignedExtent(job.ranks));
  EXPECT_TRUE(reading.ranks.empty());
  EXPECT_TRUE(reading.stragglers.empty());
  EXPECT_TRUE(reading.fixes.empty());
}

TEST(ClusterVerdictTest, DuplicateRanksAreReportedNotMerged) {
  JobVerdict job = StragglerJob();
  job.ranks.insert(job.ranks.begin() + 2, job.ranks[1]);
  const ClusterReading reading = Read(job);
  ASSERT_FALSE(reading.problems.empty());
  EXPECT_EQ(reading.problems[0], "rank 1 given more than once: later inputs ignored");
  EXPECT_EQ(reading.quality.Get(model::Dq::kDuplicateRank), 1);
  EXPECT_EQ(job.ranks[2].wait_on_peers_s, 0);  // the duplicate gets no figures
  EXPECT_NEAR(job.ranks[1].wait_on_peers_s, 0.018, 1e-12);
}

// Gives every rank of StragglerJob two ops per step: aten::add takes 1 ms everywhere; aten::mm
// takes 5 ms, and on rank 3 `mm_late_ms` more in the steps it arrives late (0..8).
void AddOpTimes(JobVerdict& job, double mm_late_ms) {
  for (auto& r : job.ranks) {
    verdict::OpStepTimes mm{
        .op = "aten::mm", .shapes = "[[4096, 4096], [4096, 4096]]", .kernel = "sm90_gemm"};
    verdict::OpStepTimes add{.op = "aten::add", .shapes = "[[4096], [4096]]", .kernel = "elementwise"};
    for (int step = 0; step < 10; ++step) {
      mm.step_s.emplace_back(step, 0.005 + (r.rank == 3 && step < 9 ? mm_late_ms * 1e-3 : 0));
      add.step_s.emplace_back(step, 0.001);
    }
    r.op_times = {mm, add};
  }
}

TEST(ClusterVerdictTest, StragglerFixNamesTheOpsThatRanSlowerOnItsRank) {
  JobVerdict job = StragglerJob();
  AddOpTimes(job, 2.0);  // rank 3's aten::mm explains its whole lateness: 9 × 2 ms
  const ClusterReading reading = Read(job);
  ASSERT_EQ(reading.stragglers.size(), 1u);
  const auto& slow = reading.stragglers[0].slow_ops;
  ASSERT_EQ(slow.size(), 1u);  // aten::add runs as fast as elsewhere
  EXPECT_EQ(slow[0].op, "aten::mm");
  EXPECT_EQ(slow[0].kernel, "sm90_gemm");
  EXPECT_EQ(slow[0].steps, 10);
  EXPECT_NEAR(slow[0].rank_s, 0.068, 1e-12);
  EXPECT_NEAR(slow[0].median_s, 0.050, 1e-12);
  EXPECT_NEAR(slow[0].excess_s, 0.018, 1e-12);
  EXPECT_NEAR(slow[0].share_of_lateness, 1.0, 1e-9);
  ASSERT_EQ(reading.fixes.size(), 1u);
  const Fix& f = reading.fixes[0];
  EXPECT_NE(f.action.find("its own ops run slower than the same ops on the other ranks (aten::mm 1.36×)"),
            std::string::npos)
      << f.action;
  EXPECT_NE(f.evidence.find("aten::mm [[4096, 4096], [4096, 4096]] (sm90_gemm): 68.00 ms vs 50.00 ms on the "
                            "median rank over 10 steps, +18.00 ms, 100% of its lateness"),
            std::string::npos)
      << f.evidence;
  EXPECT_EQ(f.culprits, (std::vector<std::string>{"rank 3", "sm90_gemm"}));
  EXPECT_NEAR(f.recoverable, 0.054 / 4, 1e-12);
}

TEST(ClusterVerdictTest, SlowOpsRecoverOnlyTheLatenessTheyExplain) {
  JobVerdict job = StragglerJob();
  AddOpTimes(job, 0.5);  // aten::mm 1.09× the median rank's: jitter, not named
  for (auto& [step, s] : job.ranks[3].op_times[1].step_s) s = step < 9 ? 0.0015 : 0.001;
  const ClusterReading reading = Read(job);
  ASSERT_EQ(reading.stragglers.size(), 1u);
  const auto& slow = reading.stragglers[0].slow_ops;
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].op, "aten::add");  // 1.45×: 9 × 0.5 ms of a lateness of 9 × 2 ms
  EXPECT_NEAR(slow[0].share_of_lateness, 0.25, 1e-9);
  EXPECT_NEAR(reading.fixes[0].recoverable, 0.25 * 0.054 / 4, 1e-12);
}

TEST(ClusterVerdictTest, StragglerWhoseOpsRunAsFastNamesNoOp) {
  JobVerdict job = StragglerJob();
  AddOpTimes(job, 0.0);  // late for another reason (host, input): its ops match the others'
  const ClusterReading reading = Read(job);
  ASSERT_EQ(reading.stragglers.size(), 1u);
  EXPECT_TRUE(reading.stragglers[0].slow_ops.empty());
  ASSERT_EQ(reading.fixes.size(), 1u);
  EXPECT_EQ(reading.fixes[0].action.find("its own ops"), std::string::npos) << reading.fixes[0].action;
  EXPECT_EQ(reading.fixes[0].culprits, (std::vector<std::string>{"rank 3"}));
  EXPECT_NEAR(reading.fixes[0].recoverable, 0.054 / 4, 1e-12);
}

TEST(ClusterVerdictTest, AnOpWithinTheOtherRanksSpreadIsJitterNotASlowOp) {
  JobVerdict job = StragglerJob();
  AddOpTimes(job, 2.0);  // rank 3's aten::mm: 7 ms in steps 0..8 against 5 ms on the median rank
  for (auto& [step, s] : job.ranks[0].op_times[0].step_s) s = 0.003;  // the others range 3 to 5 ms
  const ClusterReading reading = Read(job);
  ASSERT_EQ(reading.stragglers.size(), 1u);
  EXPECT_TRUE(reading.stragglers[0].slow_ops.empty());  // excess 18 ms within their 20 ms of spread
}

TEST(ClusterVerdictTest, OpsOnlyTheStragglerRanAreNotCompared) {
  JobVerdict job = StragglerJob();
  AddOpTimes(job, 2.0);
  for (auto& r : job.ranks) {
    if (r.rank != 3) r.op_times[0].shapes = "[[2048, 4096], [4096, 4096]]";  // another shape: another op
  }
  const ClusterReading reading = Read(job);
  ASSERT_EQ(reading.stragglers.size(), 1u);
  EXPECT_TRUE(reading.stragglers[0].slow_ops.empty());
}

}  // namespace
}  // namespace plasmient::cluster
