#include "verdict/diff.h"

#include <gtest/gtest.h>

namespace plasmient::verdict {
namespace {

JobVerdict Job(double useful, double comm, double idle, double gemm_lost_s, double nccl_lost_s,
               double step_s) {
  JobVerdict j;
  j.job.wall_s = 10;
  j.job.useful_s = useful;
  j.job.loss_s[static_cast<std::size_t>(Loss::kExposedCommunication)] = comm;
  j.job.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = idle;
  j.job.loss_s[static_cast<std::size_t>(Loss::kComputeInefficiency)] = 10 - useful - comm - idle;
  KernelAggregate gemm{.name = "gemm", .time_s = 5, .lost_s = gemm_lost_s};
  KernelAggregate nccl{.name = "ncclAllReduce", .lost_s = nccl_lost_s, .loss = Loss::kExposedCommunication};
  j.top_kernels = {nccl, gemm};
  RankVerdict r;
  r.steps = {{0, {.wall_s = step_s}}, {1, {.wall_s = step_s}}};
  j.ranks.push_back(r);
  return j;
}

TEST(DiffVerdicts, ExposedCommunicationThirtyToTenIsReportedFirst) {
  JobVerdict before = Job(2, 3, 1, 4, 3, 0.5), after = Job(3.5, 1, 1.2, 4.3, 1, 0.4);
  VerdictDiff d = DiffVerdicts(before, after, 10);
  ASSERT_FALSE(d.losses.empty());
  EXPECT_EQ(d.losses.front().key, "exposed_communication");
  EXPECT_NEAR(d.losses.front().before, 0.3, 1e-12);
  EXPECT_NEAR(d.losses.front().after, 0.1, 1e-12);
  EXPECT_NEAR(d.losses.front().delta(), -0.2, 1e-12);
  EXPECT_EQ(d.losses.size(), kLossCount);
  EXPECT_NEAR(d.achieved.delta(), 0.15, 1e-12);
  ASSERT_TRUE(d.before_step_s && d.after_step_s);
  EXPECT_NEAR(*d.before_step_s, 0.5, 1e-12);
  EXPECT_NEAR(*d.after_step_s, 0.4, 1e-12);
  ASSERT_EQ(d.kernels.size(), 2u);
  EXPECT_EQ(d.kernels.front().name, "ncclAllReduce");  // -20 pts before +3 pts
  EXPECT_NEAR(d.kernels.front().delta(), -0.2, 1e-12);
}

TEST(DiffVerdicts, KernelsInOnlyOneTopListHaveNoValueOnTheOtherSide) {
  JobVerdict before = Job(2, 3, 1, 4, 3, 0.5), after = Job(2, 3, 1, 4, 3, 0.5);
  after.top_kernels.push_back({.name = "new_kernel", .lost_s = 0.5});
  VerdictDiff d = DiffVerdicts(before, after, 10);
  ASSERT_FALSE(d.kernels.empty());
  EXPECT_EQ(d.kernels.front().name, "new_kernel");
  EXPECT_FALSE(d.kernels.front().before_lost_fraction);
  EXPECT_NEAR(*d.kernels.front().after_lost_fraction, 0.05, 1e-12);
  EXPECT_EQ(DiffVerdicts(before, after, 1).kernels.size(), 1u);
}

}  // namespace
}  // namespace plasmient::verdict
