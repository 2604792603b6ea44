#include "synth/truth_calculator.h"

#include <gtest/gtest.h>

namespace plasmient::synth {
namespace {

// P = 1e12 FLOP/s (1000 FLOPs per ns), BW = 1e10 B/s: ridge = 100 FLOP/B.
constexpr DeviceModel kDevice{1e12, 1e10};

TruthActivity Compute(TimeNs start, TimeNs end, double flops, double bytes, int step = 0) {
  TruthActivity a;
  a.start_ns = start;
  a.end_ns = end;
  a.cls = ActivityClass::kCompute;
  a.flop_model = flops > 0;
  a.byte_model = bytes > 0;
  a.flops = flops;
  a.bytes = bytes;
  a.step = step;
  return a;
}

TruthActivity Other(ActivityClass cls, TimeNs start, TimeNs end, int step = 0) {
  TruthActivity a;
  a.start_ns = start;
  a.end_ns = end;
  a.cls = cls;
  a.step = step;
  return a;
}

double FractionSum(const WindowTruth& w) { return (w.useful_s + w.losses.Total()) / w.span_s; }

TEST(TruthCalculatorTest, ComputeBoundKernelSplitsIntoUsefulAndInefficiency) {
  // 500 ns worth of FLOPs at peak in a 1000 ns kernel, intensity 1000 >> ridge 100.
  const std::vector<TruthActivity> acts = {Compute(0, 1000, 500'000, 500)};
  const RankTruth t = ComputeRankTruth(acts, kDevice);
  EXPECT_DOUBLE_EQ(t.run.span_s, 1000e-9);
  EXPECT_DOUBLE_EQ(t.run.AchievedFraction(), 0.5);
  EXPECT_DOUBLE_EQ(t.run.losses.compute_inefficiency / t.run.span_s, 0.5);
  EXPECT_EQ(t.run.losses.memory_bound, 0);
  EXPECT_EQ(t.kernels[0].category, LossCategory::kComputeInefficiency);
  EXPECT_DOUBLE_EQ(FractionSum(t.run), 1.0);
}

TEST(TruthCalculatorTest, LowIntensityAndByteOnlyKernelsAreMemoryBound) {
  // Intensity 10 < ridge 100; then a byte-only elementwise kernel.
  const std::vector<TruthActivity> acts = {Compute(0, 400, 100'000, 10'000), Compute(400, 1000, 0, 4096)};
  const RankTruth t = ComputeRankTruth(acts, kDevice);
  EXPECT_DOUBLE_EQ(t.run.useful_s, 100e-9);
  EXPECT_DOUBLE_EQ(t.run.losses.memory_bound, 900e-9);
  EXPECT_EQ(t.run.losses.compute_inefficiency, 0);
  EXPECT_EQ(t.kernels[1].category, LossCategory::kMemoryBound);
  EXPECT_DOUBLE_EQ(FractionSum(t.run), 1.0);
}

TEST(TruthCalculatorTest, KernelWithoutModelIsUnmodeledAndFlopsWithoutBytesIsCompute) {
  const std::vector<TruthActivity> acts = {Compute(0, 300, 0, 0), Compute(300, 1000, 350'000, 0)};
  const RankTruth t = ComputeRankTruth(acts, kDevice);
  EXPECT_DOUBLE_EQ(t.run.losses.unmodeled_kernels, 300e-9);
  EXPECT_DOUBLE_EQ(t.run.useful_s, 350e-9);
  EXPECT_DOUBLE_EQ(t.run.losses.compute_inefficiency, 350e-9);
  EXPECT_EQ(t.kernels[0].category, LossCategory::kUnmodeled);
  EXPECT_EQ(t.kernels[1].category, LossCategory::kComputeInefficiency);
}

TEST(TruthCalculatorTest, ConcurrentComputeKernelsSplitSlicesAndClampAtTheirShare) {
  // A [0,100) and B [50,150): each gets 50 alone + 25 shared = 75 ns.
  const std::vector<TruthActivity> acts = {Compute(0, 100, 60'000, 60), Compute(50, 150, 100'000, 100)};
  const RankTruth t = ComputeRankTruth(acts, kDevice);
  EXPECT_DOUBLE_EQ(t.kernels[0].share_s, 75e-9);
  EXPECT_DOUBLE_EQ(t.kernels[1].share_s, 75e-9);
  EXPECT_DOUBLE_EQ(t.kernels[0].useful_s, 60e-9);
  EXPECT_DOUBLE_EQ(t.kernels[1].useful_s, 75e-9);  // modeled above its share: clamped
  EXPECT_DOUBLE_EQ(t.run.useful_s, 135e-9);
  EXPECT_DOUBLE_EQ(t.run.losses.compute_inefficiency, 15e-9);
  EXPECT_DOUBLE_EQ(FractionSum(t.run), 1.0);
}

TEST(TruthCalculatorTest, SlicePriorityAndPeerFigures) {
  const std::vector<TruthActivity> acts = {
      Compute(0, 100, 0, 1000),
      Other(ActivityClass::kCollective, 50, 200),
      Other(ActivityClass::kP2p, 180, 300),
      Other(ActivityClass::kMemory, 290, 350),
      Compute(400, 500, 0, 1000),
  };
  const RankTruth t = ComputeRankTruth(acts, kDevice);
  const WindowTruth& w = t.run;
  EXPECT_DOUBLE_EQ(w.span_s, 500e-9);
  EXPECT_DOUBLE_EQ(w.losses.memory_bound, 200e-9);
  EXPECT_DOUBLE_EQ(w.losses.exposed_communication, 100e-9);  // 100-200, collective beats p2p
  EXPECT_DOUBLE_EQ(w.losses.pipeline_bubble, 100e-9);        // 200-300, p2p beats memcpy
  EXPECT_DOUBLE_EQ(w.losses.data_movement, 50e-9);
  EXPECT_DOUBLE_EQ(w.losses.host_bound_idle, 50e-9);
  EXPECT_DOUBLE_EQ(w.Utilization(), 400.0 / 500.0);
  EXPECT_DOUBLE_EQ(w.gpu_busy_s, 450e-9);
  EXPECT_DOUBLE_EQ(w.compute_s, 200e-9);
  EXPECT_DOUBLE_EQ(w.communication_s, 250e-9);
  EXPECT_DOUBLE_EQ(w.communication_overlapped_s, 50e-9);
  EXPECT_DOUBLE_EQ(FractionSum(w), 1.0);
}

TEST(TruthCalculatorTest, StepWindowsTileTheRunWindow) {
  const std::vector<TruthActivity> acts = {
      Compute(100, 300, 100'000, 100, 3),
      Other(ActivityClass::kMemory, 350, 400, 3),
      Compute(600, 700, 0, 100, 4),
      Other(ActivityClass::kCollective, 650, 900, 4),
  };
  const RankTruth t = ComputeRankTruth(acts, kDevice);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].step, 3);
  EXPECT_EQ(t.steps[0].window.start_ns, 100);
  EXPECT_EQ(t.steps[0].window.end_ns, 600);  // step 4's first start
  EXPECT_EQ(t.steps[1].window.end_ns, 900);
  EXPECT_DOUBLE_EQ(t.steps[0].window.losses.host_bound_idle, 250e-9);  // 300-350, 400-600
  EXPECT_DOUBLE_EQ(t.steps[0].window.span_s + t.steps[1].window.span_s, t.run.span_s);
  LossSeconds sum = t.steps[0].window.losses;
  sum.Add(t.steps[1].window.losses);
  EXPECT_NEAR(sum.Total(), t.run.losses.Total(), 1e-18);
  for (const StepTruth& s : t.steps) EXPECT_NEAR(FractionSum(s.window), 1.0, 1e-12);
}

TEST(TruthCalculatorTest, DominantDtypeCarriesTheMostModeledFlops) {
  std::vector<TruthActivity> acts = {Compute(0, 10, 1000, 10), Compute(10, 20, 3000, 10)};
  EXPECT_EQ(DominantDtype(acts), Dtype::kBf16);
  acts[1].dtype = Dtype::kFp32;
  EXPECT_EQ(DominantDtype(acts), Dtype::kFp32);
  acts[1].flop_model = false;
  EXPECT_EQ(DominantDtype(acts), Dtype::kBf16);
}

}  // namespace
}  // namespace plasmient::synth
