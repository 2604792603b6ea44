#include "diagnose/warm_up.h"
#include "verdict/iterations.h"

#include <gtest/gtest.h>

namespace plasmient::diagnose {
namespace {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

std::vector<StepFigures> Steps(std::initializer_list<double> walls_s, std::int64_t first = 0) {
  std::vector<StepFigures> out;
  for (double w : walls_s) {
    StepFigures s;
    s.number = first++;
    s.figures.wall_s = w;
    out.push_back(s);
  }
  return out;
}

// One rank with these steps; the capacity is their sum.
JobVerdict OneRank(std::vector<StepFigures> steps, std::int64_t rank = 0) {
  JobVerdict job;
  RankVerdict r;
  r.rank = rank;
  r.steps = std::move(steps);
  for (const auto& s : r.steps) job.job.wall_s += s.figures.wall_s;
  job.ranks.push_back(std::move(r));
  job.evidence.aten_ops = 10;
  return job;
}

TEST(WarmUp, SlowLeadingStepsAreTheWarmUp) {
  JobVerdict job = OneRank(Steps({0.9, 0.32, 0.21, 0.2, 0.2, 0.19}, 1));
  WarmUp w = DetectWarmUp(job);
  ASSERT_TRUE(w.detected);
  EXPECT_TRUE(w.by_steps);
  EXPECT_FALSE(w.by_causes);
  EXPECT_EQ(w.confidence, "high");
  EXPECT_EQ(w.skip_steps, 2);  // 0.9 and 0.32 both exceed 1.5 × the last half's median (0.2)
  EXPECT_NEAR(w.slow_steps_excess_s, (0.9 - 0.2) + (0.32 - 0.2), 1e-12);
  EXPECT_NE(w.evidence.find("ProfilerStep#1 took 900.0 ms, 4.5×"), std::string::npos) << w.evidence;
  EXPECT_NE(w.fix.find("--steps 2:"), std::string::npos) << w.fix;
  EXPECT_NE(w.fix.find("torch.profiler.schedule"), std::string::npos) << w.fix;
}

TEST(WarmUp, SteadyStepsAndATrailingOutlierAreNot) {
  EXPECT_FALSE(DetectWarmUp(OneRank(Steps({0.21, 0.22, 0.21, 0.22, 0.37}))).detected);
  EXPECT_FALSE(DetectWarmUp(OneRank(Steps({0.29, 0.2, 0.2}))).detected);  // 1.45×: under the ratio
  // Two steps say little: a slow first one among two is not read as warm-up.
  EXPECT_FALSE(DetectWarmUp(OneRank(Steps({0.9, 0.2}))).detected);
  // Every step slow in turn: no more than half the steps are ever called warm-up.
  SlowLeadingSteps s = LeadingSlowSteps(Steps({8, 4, 2, 1}));
  EXPECT_LE(s.count, 2u);
}

TEST(WarmUp, CompileHoldingTheGpuIdleIsAWarmUpWithoutSteps) {
  JobVerdict job = OneRank({});
  job.job.wall_s = 0.0089;
  auto& c = job.evidence.host_idle[HostCause::kCompile];
  c.idle_s = 0.0065;
  c.names.push_back({"hipLaunchKernel", 1, 0.0065});
  WarmUp w = DetectWarmUp(job);
  ASSERT_TRUE(w.detected);
  EXPECT_TRUE(w.by_causes);
  EXPECT_EQ(w.confidence, "medium");
  EXPECT_NEAR(w.share, 0.0065 / 0.0089, 1e-12);
  EXPECT_NE(w.evidence.find("hipLaunchKernel 6.5 ms"), std::string::npos) << w.evidence;
  EXPECT_NE(w.fix.find("TORCHINDUCTOR_CACHE_DIR"), std::string::npos) << w.fix;

  // Under a tenth of the window, compile is a cost of the step, not a warm-up.
  c.idle_s = 0.0008;
  EXPECT_FALSE(DetectWarmUp(job).detected);
}

TEST(WarmUp, GraphCaptureAndANonPyTorchProgramGetTheirOwnAdvice) {
  JobVerdict job = OneRank({});
  job.job.wall_s = 1;
  job.evidence.aten_ops = 0;
  job.evidence.host_idle[HostCause::kGraphCapture].idle_s = 0.4;
  WarmUp w = DetectWarmUp(job);
  ASSERT_TRUE(w.detected);
  EXPECT_NE(w.fix.find("graph capture"), std::string::npos) << w.fix;
  EXPECT_NE(w.fix.find("nsys --delay"), std::string::npos) << w.fix;
  EXPECT_EQ(w.fix.find("torch.profiler"), std::string::npos) << w.fix;
}

TEST(WarmUp, TheRankWithTheCostliestWarmUpSpeaksAndTheCountIsSaid) {
  JobVerdict job = OneRank(Steps({0.2, 0.2, 0.2, 0.2}), 0);
  RankVerdict slow;
  slow.rank = 3;
  slow.steps = Steps({0.8, 0.2, 0.2, 0.2});
  job.job.wall_s += 1.4;
  job.ranks.push_back(slow);
  WarmUp w = DetectWarmUp(job);
  ASSERT_TRUE(w.detected);
  EXPECT_EQ(w.skip_steps, 1);
  EXPECT_NE(w.evidence.find("rank 3: ProfilerStep#0"), std::string::npos) << w.evidence;
  EXPECT_NE(w.evidence.find("on 1 of 2 ranks"), std::string::npos) << w.evidence;
  EXPECT_NEAR(w.share, 0.6 / 2.2, 1e-12);
}

// A rank whose trace marks no steps, with these iteration windows read from its timeline.
JobVerdict Unmarked(std::initializer_list<double> walls_s) {
  JobVerdict job = OneRank({});
  RankVerdict& r = job.ranks.front();
  r.iterations.source = "host_range";
  r.iterations.marker = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
  r.iterations.wall_s = walls_s;
  r.iterations.occurrences = static_cast<std::int64_t>(walls_s.size()) + 1;
  r.iterations.activities = 335;
  for (double w : walls_s) job.job.wall_s += w;
  return job;
}

// No ProfilerStep marks: the iterations read from the timeline take the same 1.5× rule, every
// period whole (none is left out of the median); the evidence says how they were read, and the
// fix cannot be --steps.
TEST(WarmUp, WithoutStepMarksTheIterationsTakeTheSameRule) {
  JobVerdict job = Unmarked({2.6, 0.2, 0.25, 0.22, 0.21, 0.8});
  WarmUp w = DetectWarmUp(job);
  ASSERT_TRUE(w.detected);
  EXPECT_TRUE(w.by_iterations);
  EXPECT_FALSE(w.by_steps);
  EXPECT_EQ(w.confidence, "medium");
  EXPECT_EQ(w.skip_steps, 0);
  EXPECT_EQ(w.slow_iterations, 1);
  EXPECT_EQ(w.iterations, 6);
  EXPECT_EQ(w.iterations_source, "host_range");
  EXPECT_NEAR(w.iteration_reference_s, 0.22, 1e-12);  // the median of all five after it
  EXPECT_NEAR(w.slow_iterations_excess_s, 2.6 - 0.22, 1e-12);
  EXPECT_NEAR(w.share, (2.6 - 0.22) / job.job.wall_s, 1e-12);
  EXPECT_NE(w.evidence.find("the first of 6 iterations took 2.60 s, 11.8×"), std::string::npos) << w.evidence;
  EXPECT_NE(w.evidence.find("7 starts of the host range enumerate(DataLoader)"), std::string::npos)
      << w.evidence;
  EXPECT_EQ(w.fix.find("--steps 1:"), std::string::npos) << w.fix;
  EXPECT_NE(w.fix.find("torch.profiler.schedule"), std::string::npos) << w.fix;

  // Steady iterations are not a warm-up, and an iteration basis needs three of them.
  EXPECT_FALSE(DetectWarmUp(Unmarked({0.21, 0.2, 0.25, 0.22, 0.21})).detected);
  EXPECT_FALSE(DetectWarmUp(Unmarked({2.6, 0.2})).detected);
}

// Host costs seen only in the first iterations count with compile and capture as warm-up causes,
// named in the evidence, merged over ranks by cause and name.
TEST(WarmUp, OnceEarlyCostsAreWarmUpCauses) {
  JobVerdict job = OneRank(Steps({0.2, 0.2, 0.2, 0.2}));
  job.job.wall_s = 1.0;
  RankVerdict& r = job.ranks.front();
  r.once_early = {{"cudaFree", HostCause::kAllocator, 0.09},
                  {"cudaStreamCreateWithFlags", HostCause::kHostWork, 0.02}};
  r.once_early_s = 0.11;
  RankVerdict other = r;
  other.rank = 1;
  job.ranks.push_back(other);
  job.job.wall_s = 2.0;
  WarmUp w = DetectWarmUp(job);
  ASSERT_TRUE(w.detected);
  EXPECT_TRUE(w.by_causes);
  EXPECT_FALSE(w.by_steps);
  EXPECT_NEAR(w.warm_up_causes_s, 0.22, 1e-12);
  EXPECT_NEAR(w.once_early_s, 0.22, 1e-12);
  ASSERT_EQ(w.once_early.size(), 2u);
  EXPECT_EQ(w.once_early.front().name, "cudaFree");
  EXPECT_NEAR(w.once_early.front().idle_s, 0.18, 1e-12);
  EXPECT_NE(w.evidence.find("cudaFree 180.0 ms (allocator)"), std::string::npos) << w.evidence;
  EXPECT_NE(w.fix.find("first-iteration costs"), std::string::npos) << w.fix;
}

}  // namespace
}  // namespace plasmient::diagnose
