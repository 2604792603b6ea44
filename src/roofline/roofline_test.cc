#include "roofline/roofline.h"

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

constexpr double kPeak = 100e12;  // ridge point P / BW = 50 FLOP/B
constexpr double kBw = 2e12;

TEST(Roofline, MemorySideOfTheRidge) {
  RooflinePoint p = Evaluate(1e9, 1e9, 1e-3, kPeak, kBw);  // AI 1
  EXPECT_DOUBLE_EQ(p.ai, 1);
  EXPECT_TRUE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.ceiling_flops_per_s, 2e12);  // AI · BW
  EXPECT_DOUBLE_EQ(p.achieved_flops_per_s, 1e12);
  EXPECT_DOUBLE_EQ(p.roofline_fraction, 0.5);
}

TEST(Roofline, ComputeSideOfTheRidge) {
  RooflinePoint p = Evaluate(1e12, 1e9, 0.02, kPeak, kBw);  // AI 1000
  EXPECT_FALSE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.ceiling_flops_per_s, kPeak);
  EXPECT_DOUBLE_EQ(p.achieved_flops_per_s, 50e12);
  EXPECT_DOUBLE_EQ(p.roofline_fraction, 0.5);
}

TEST(Roofline, AtTheRidgeIsComputeBound) {
  RooflinePoint p = Evaluate(50e9, 1e9, 1e-3, kPeak, kBw);
  EXPECT_FALSE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.ceiling_flops_per_s, kPeak);
}

TEST(Roofline, UnknownBytesAndZeroTime) {
  RooflinePoint p = Evaluate(1e9, -1, 1e-3, kPeak, kBw);
  EXPECT_DOUBLE_EQ(p.ceiling_flops_per_s, kPeak);
  EXPECT_FALSE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.roofline_fraction, 0.01);
  RooflinePoint z = Evaluate(1e9, 1e9, 0, kPeak, kBw);
  EXPECT_DOUBLE_EQ(z.achieved_flops_per_s, 0);
  EXPECT_DOUBLE_EQ(z.roofline_fraction, 0);
}

TEST(Roofline, ByteOnlyModelIsMemoryBoundAndJudgedByBandwidth) {
  RooflinePoint p = Evaluate(0, 1e9, 1e-3, kPeak, kBw);
  EXPECT_TRUE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.ceiling_flops_per_s, 0);
  EXPECT_DOUBLE_EQ(p.roofline_fraction, 0.5);  // 1 TB/s of 2 TB/s
  RooflinePoint unknown_flops = Evaluate(-1, 1e9, 1e-3, kPeak, kBw);
  EXPECT_FALSE(unknown_flops.memory_bound);  // no FLOPs, no intensity
  EXPECT_DOUBLE_EQ(unknown_flops.ceiling_flops_per_s, kPeak);
  EXPECT_DOUBLE_EQ(unknown_flops.roofline_fraction, 0.5);
}

TEST(Roofline, FractionOfPeak) {
  RooflinePoint p = Evaluate(1e9, 1e9, 1e-3, kPeak, kBw);  // 1 TFLOP/s of 100
  EXPECT_DOUBLE_EQ(p.peak_fraction, 0.01);
  EXPECT_DOUBLE_EQ(Evaluate(1e9, 1e9, 1e-3, 0, kBw).peak_fraction, 0);
}

TEST(Roofline, BelowRidgeIsStrictAndNeedsABandwidth) {
  EXPECT_TRUE(BelowRidge(49.9, kPeak, kBw));
  EXPECT_FALSE(BelowRidge(50, kPeak, kBw));
  EXPECT_FALSE(BelowRidge(1, kPeak, 0));
  EXPECT_FALSE(BelowRidge(-1, kPeak, kBw));  // unknown intensity
}

TEST(Roofline, RidgeAndRoofAtAnIntensity) {
  EXPECT_DOUBLE_EQ(RidgePoint(kPeak, kBw), 50);
  EXPECT_EQ(RidgePoint(kPeak, 0), 0);
  EXPECT_DOUBLE_EQ(CeilingAt(10, kPeak, kBw), 10 * kBw);  // on the bandwidth slope
  EXPECT_DOUBLE_EQ(CeilingAt(500, kPeak, kBw), kPeak);    // under the compute roof
  EXPECT_DOUBLE_EQ(CeilingAt(10, kPeak, 0), kPeak);       // no bandwidth: only the roof
  EXPECT_DOUBLE_EQ(Evaluate(1e9, 1e8, 1e-3, kPeak, kBw).ceiling_flops_per_s, CeilingAt(10, kPeak, kBw));
}

}  // namespace
}  // namespace plasmient::roofline
