#include "verdict/sweep.h"

#include <gtest/gtest.h>

#include <map>

namespace plasmient::verdict {
namespace {

using join::ActivityClass;

std::map<std::int32_t, double> Shares(const SweepResult& r) {
  std::map<std::int32_t, double> m;
  for (auto [id, s] : r.shares) m[id] += s;
  return m;
}

TEST(Sweep, PriorityComputeThenCollectiveThenP2PThenMemoryThenIdle) {
  // compute 0..100 and 299..300; collective 50..150 (50 ns under compute); p2p 150..200;
  // memcpy 190..230 (its first 10 ns go to p2p); idle 230..299.
  std::vector<SweepActivity> a = {
      {0, 100, ActivityClass::kCompute, 0},   {50, 150, ActivityClass::kCollective, 1},
      {150, 200, ActivityClass::kP2P, 2},     {190, 230, ActivityClass::kMemory, 3},
      {299, 300, ActivityClass::kCompute, 4},
  };
  SweepResult r = Sweep(a, 0, 300);
  EXPECT_DOUBLE_EQ(r.compute_ns, 101);
  EXPECT_DOUBLE_EQ(r.exposed_communication_ns, 50);
  EXPECT_DOUBLE_EQ(r.pipeline_bubble_ns, 50);
  EXPECT_DOUBLE_EQ(r.data_movement_ns, 30);
  EXPECT_DOUBLE_EQ(r.idle_ns, 69);
  EXPECT_EQ(r.idle_gaps, (std::vector<std::pair<TimeNs, TimeNs>>{{230, 299}}));
  EXPECT_DOUBLE_EQ(
      r.compute_ns + r.exposed_communication_ns + r.pipeline_bubble_ns + r.data_movement_ns + r.idle_ns, 300);
  EXPECT_DOUBLE_EQ(r.kernel_union_ns, 201);  // memcpy is not a kernel
  EXPECT_DOUBLE_EQ(r.busy_union_ns, 231);
  EXPECT_DOUBLE_EQ(r.communication_union_ns, 150);
  EXPECT_DOUBLE_EQ(r.communication_overlapped_ns, 50);
  auto s = Shares(r);
  EXPECT_DOUBLE_EQ(s[0], 100);
  EXPECT_DOUBLE_EQ(s[1], 50);  // exposed part only
  EXPECT_DOUBLE_EQ(s[2], 50);  // p2p outranks memory in 190..200
  EXPECT_DOUBLE_EQ(s[3], 30);
}

TEST(Sweep, ConcurrentComputeKernelsSplitTheirSlices) {
  std::vector<SweepActivity> a = {
      {0, 100, ActivityClass::kCompute, 0},
      {50, 100, ActivityClass::kCompute, 1},
      {60, 80, ActivityClass::kCompute, 2},
  };
  SweepResult r = Sweep(a, 0, 100);
  auto s = Shares(r);
  // 0..50: k0 alone (50); 50..60 and 80..100 halves (15 each); 60..80 thirds (20/3 each).
  EXPECT_NEAR(s[0], 50 + 15 + 20.0 / 3, 1e-9);
  EXPECT_NEAR(s[1], 15 + 20.0 / 3, 1e-9);
  EXPECT_NEAR(s[2], 20.0 / 3, 1e-9);
  EXPECT_NEAR(s[0] + s[1] + s[2], r.compute_ns, 1e-9);
}

TEST(Sweep, IdleGapsAreTheSlicesWithNothingResidentOncePerGap) {
  // Two kernels ending together and one starting at that instant leave no gap there; the window
  // edges count as idle.
  std::vector<SweepActivity> a = {
      {10, 20, ActivityClass::kCompute, 0},    {15, 20, ActivityClass::kMemory, 1},
      {20, 30, ActivityClass::kCollective, 2}, {40, 50, ActivityClass::kCompute, 3},
      {40, 45, ActivityClass::kCompute, 4},
  };
  SweepResult r = Sweep(a, 0, 60);
  EXPECT_EQ(r.idle_gaps, (std::vector<std::pair<TimeNs, TimeNs>>{{0, 10}, {30, 40}, {50, 60}}));
  EXPECT_DOUBLE_EQ(r.idle_ns, 30);
}

TEST(Sweep, ClipsToTheWindow) {
  std::vector<SweepActivity> a = {{0, 100, ActivityClass::kCompute, 0},
                                  {150, 400, ActivityClass::kCollective, 1}};
  SweepResult r = Sweep(a, 50, 200);
  EXPECT_DOUBLE_EQ(r.compute_ns, 50);
  EXPECT_DOUBLE_EQ(r.idle_ns, 50);
  EXPECT_DOUBLE_EQ(r.exposed_communication_ns, 50);
  EXPECT_TRUE(Sweep(a, 10, 10).shares.empty());
}

TEST(Sweep, LongestStretchPerDecidingClassIsTheEarliestOfEqualOnesAcrossAdjacentActivities) {
  // Collective 0..10 then 10..30 back to back: one stretch of 30, not two. Compute 40..50 breaks
  // it; collective 50..60 is shorter. Memory 60..70 and 80..90 tie at 10: the earlier is kept.
  // Idle: 30..40 and 70..80 (10 each, the earlier), never 90..100 which is 10 too.
  std::vector<SweepActivity> a = {
      {0, 10, ActivityClass::kCollective, 0}, {10, 30, ActivityClass::kCollective, 1},
      {40, 50, ActivityClass::kCompute, 2},   {50, 60, ActivityClass::kCollective, 3},
      {60, 70, ActivityClass::kMemory, 4},    {80, 90, ActivityClass::kMemory, 5},
  };
  SweepResult r = Sweep(a, 0, 100);
  using Stretch = std::optional<std::pair<TimeNs, TimeNs>>;
  auto longest = [&r](std::size_t c) { return r.longest_stretch[c]; };
  EXPECT_EQ(longest(static_cast<std::size_t>(ActivityClass::kCollective)), Stretch({0, 30}));
  EXPECT_EQ(longest(static_cast<std::size_t>(ActivityClass::kCompute)), Stretch({40, 50}));
  EXPECT_EQ(longest(static_cast<std::size_t>(ActivityClass::kMemory)), Stretch({60, 70}));
  EXPECT_EQ(longest(static_cast<std::size_t>(ActivityClass::kP2P)), std::nullopt);
  EXPECT_EQ(longest(kIdleStretch), Stretch({30, 40}));
}

}  // namespace
}  // namespace plasmient::verdict
