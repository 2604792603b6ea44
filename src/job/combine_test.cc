#include "job/combine.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"
#include "verdict/analyze.h"
#include "verdict/testing/launch_builder.h"
#include "verdict/testing/test_options.h"

namespace plasmient::job {
namespace {

using join::CollectiveInstance;
using model::GpuKind;
using verdict::AnalyzeOptions;
using verdict::CollectiveTotals;
using verdict::JobVerdict;
using verdict::KernelAggregate;
using verdict::Loss;
using verdict::RankVerdict;

using verdict::testing::kMmDims;
using verdict::testing::kMmTypes;

AnalyzeOptions Options() { return verdict::testing::TestOptions(); }

TEST(CombineRanks, DerivedModelFlopsBelowTheCoverageFloorAreNotMfu) {
  verdict::testing::LaunchBuilder t;
  t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 75'000);
  t.Kernel("aten::my_custom_op", "", "", "my_custom_kernel", 75'000, 100'000);
  t.Kernel("", "", "", "Memcpy DtoH", 100'000, 200'000, GpuKind::kMemcpy);  // not compute
  model::Trace trace = std::move(t.b).Finish();
  auto v = verdict::AnalyzeRank(trace, Options());
  ASSERT_TRUE(v);
  EXPECT_NEAR(v->compute_kernel_s, 100e-6, 1e-12);
  EXPECT_NEAR(v->modeled_compute_s, 75e-6, 1e-12);
  // Derived model FLOPs at 75% coverage are not reported as MFU.
  JobVerdict job = CombineRanks({*v}, Options());
  ASSERT_TRUE(job.model_coverage());
  EXPECT_NEAR(*job.model_coverage(), 0.75, 1e-9);
  EXPECT_FALSE(job.mfu());
  EXPECT_NE(job.model_flops_source.find("not reported"), std::string::npos) << job.model_flops_source;
}

TEST(CombineRanks, CapacityWeightedAndSumsToOne) {
  RankVerdict a, b;
  a.rank = 0;
  a.run.wall_s = 1;
  a.run.useful_s = 0.5;
  a.run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = 0.5;
  b.rank = 1;
  b.run.wall_s = 3;
  b.run.useful_s = 0.3;
  b.run.loss_s[static_cast<std::size_t>(Loss::kExposedCommunication)] = 2.7;
  JobVerdict job = CombineRanks({b, a}, Options());
  EXPECT_NEAR(job.job.achieved(), 0.8 / 4, 1e-12);
  EXPECT_NEAR(job.job.loss(Loss::kExposedCommunication), 2.7 / 4, 1e-12);
  EXPECT_EQ(job.ranks.front().rank, 0);
  ASSERT_FALSE(job.fixes.empty());
  EXPECT_EQ(job.fixes.front().loss, Loss::kExposedCommunication);
}

// The job's top kernels merge the ranks' lists by name, whatever order each rank lists them in;
// the first rank's aggregate gives what is not summed (its op).
TEST(CombineRanks, MergesTopKernelsByNameInAnyOrder) {
  auto agg = [](std::string name, std::string op, double lost_s) {
    KernelAggregate k;
    k.name = std::move(name);
    k.op = std::move(op);
    k.calls = 1;
    k.time_s = 2 * lost_s;
    k.lost_s = lost_s;
    return k;
  };
  std::vector<RankVerdict> ranks(4);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].rank = static_cast<std::int64_t>(i);
    ranks[i].run.wall_s = 1;
  }
  ranks[0].top_kernels = {agg("gemm", "aten::mm", 0.5), agg("copy", "aten::copy_", 0.25),
                          agg("norm", "", 0.125)};
  ranks[1].top_kernels = {agg("gemm", "aten::addmm", 0.5), agg("copy", "", 0.25), agg("norm", "", 0.125)};
  ranks[2].top_kernels = {agg("norm", "", 1), agg("gemm", "", 0.5)};
  ranks[3].top_kernels = {agg("copy", "", 0.25), agg("softmax", "aten::softmax", 0.0625),
                          agg("gemm", "", 0.5)};
  AnalyzeOptions o = Options();
  o.top_n = 3;
  JobVerdict job = CombineRanks(ranks, o);
  ASSERT_EQ(job.top_kernels.size(), 3u);
  EXPECT_EQ(job.top_kernels[0].name, "gemm");
  EXPECT_EQ(job.top_kernels[0].op, "aten::mm");
  EXPECT_EQ(job.top_kernels[0].calls, 4);
  EXPECT_EQ(job.top_kernels[0].lost_s, 2);
  EXPECT_EQ(job.top_kernels[0].time_s, 4);
  EXPECT_EQ(job.top_kernels[1].name, "norm");
  EXPECT_EQ(job.top_kernels[1].lost_s, 1.25);
  EXPECT_EQ(job.top_kernels[2].name, "copy");
  EXPECT_EQ(job.top_kernels[2].calls, 3);
  EXPECT_EQ(job.top_kernels[2].lost_s, 0.75);
  o.cores = 3;
  JobVerdict many = CombineRanks(ranks, o);
  ASSERT_EQ(many.top_kernels.size(), job.top_kernels.size());
  for (std::size_t k = 0; k < job.top_kernels.size(); ++k) {
    EXPECT_EQ(many.top_kernels[k].name, job.top_kernels[k].name);
    EXPECT_EQ(many.top_kernels[k].lost_s, job.top_kernels[k].lost_s);
  }
}

TEST(CombineRanks, TotalsEachCollectiveByNameOverTheRanks) {
  auto call = [](std::string_view name, TimeNs start, TimeNs end, std::int64_t bytes, bool p2p = false) {
    CollectiveInstance c;
    c.name = name;
    c.start_ns = start;
    c.end_ns = end;
    c.bytes = bytes;
    c.p2p = p2p;
    return c;
  };
  RankVerdict a, b;
  a.rank = 0;
  b.rank = 1;
  // allreduce: 2 ms reporting 4 MB, 1 ms not reporting bytes, then 3 ms reporting 2 MB on rank 1.
  a.collectives = {call("allreduce", 0, 2'000'000, 4'000'000), call("allreduce", 5'000'000, 6'000'000, -1),
                   call("send", 0, 500'000, -1, true)};
  b.collectives = {call("allreduce", 0, 3'000'000, 2'000'000)};
  JobVerdict job = CombineRanks({b, a}, Options());
  ASSERT_EQ(job.collective_totals.size(), 2u);
  const CollectiveTotals& ar = job.collective_totals[0];
  EXPECT_EQ(ar.name, "allreduce");
  EXPECT_EQ(ar.calls, 3);
  EXPECT_EQ(ar.ranks, 2);
  EXPECT_FALSE(ar.p2p);
  EXPECT_DOUBLE_EQ(ar.time_s, 6e-3);
  EXPECT_EQ(ar.bytes, 6'000'000);
  EXPECT_DOUBLE_EQ(ar.bytes_per_s, 6e6 / 5e-3);  // the untimed call's millisecond left out
  const CollectiveTotals& send = job.collective_totals[1];
  EXPECT_EQ(send.name, "send");
  EXPECT_TRUE(send.p2p);
  EXPECT_EQ(send.ranks, 1);
  EXPECT_EQ(send.bytes, 0);
  EXPECT_EQ(send.bytes_per_s, 0);  // no call says its bytes
}

// Four ranks of one all-reduce per step, 10 steps; rank 3 arrives 2 ms late in steps 0..8; rank 2's
// clock runs 40 ms ahead; every rank loses half its second to host-bound idle.
std::vector<RankVerdict> StragglerRanks() {
  constexpr TimeNs kMs = kNsPerMs;
  std::vector<RankVerdict> ranks;
  for (int r = 0; r < 4; ++r) {
    RankVerdict v;
    v.rank = r;
    const TimeNs offset = r == 2 ? 40 * kMs : 0;
    v.run.start_ns = offset;
    v.run.end_ns = offset + kNsPerS;
    v.run.wall_s = 1.0;
    v.run.useful_s = 0.5;
    v.run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = 0.5;
    for (int step = 0; step < 10; ++step) {
      CollectiveInstance c;
      c.group = "0";
      c.group_ranks = "[0, 1, 2, 3]";
      c.group_size = 4;
      c.seq = step;
      c.name = "allreduce";
      c.kind = join::CollectiveKind::kAllReduce;
      c.bytes = 64 << 20;
      c.step = step;
      c.start_ns = step * 100 * kMs + (r == 3 && step < 9 ? 2 * kMs : 0) + offset;
      c.end_ns = step * 100 * kMs + (step < 9 ? 2 * kMs : 0) + kMs + offset;
      v.collectives.push_back(c);
    }
    ranks.push_back(std::move(v));
  }
  return ranks;
}

// The job verdict is assembled once: the cluster layer's figures are in the ranks, the job's extent
// is on the reference rank's clock, and the stragglers' fixes sort with the losses' in one list.
TEST(CombineRanks, AssemblesTheClusterReadingIntoTheJobOnce) {
  std::vector<RankVerdict> ranks = StragglerRanks();
  std::swap(ranks[0], ranks[3]);  // in any order
  const JobVerdict job = CombineRanks(std::move(ranks), Options(), {.repeated = 2, .skipped = 1});
  ASSERT_EQ(job.ranks.size(), 4u);
  EXPECT_EQ(job.ranks[0].rank, 0);
  EXPECT_NEAR(job.ranks[2].clock_offset_s, 0.040, 1e-12);
  EXPECT_TRUE(job.ranks[2].clock_aligned);
  EXPECT_NEAR(job.ranks[0].wait_on_peers_s, 0.018, 1e-12);
  EXPECT_NEAR(job.ranks[3].caused_wait_s, 0.054, 1e-12);
  EXPECT_EQ(job.ranks[3].collectives.size(), 10u);
  EXPECT_EQ(job.job.start_ns, 0);  // rank 2's window, 40 ms ahead, does not stretch the job
  EXPECT_EQ(job.job.end_ns, kNsPerS);
  EXPECT_NEAR(job.job.wall_s, 4.0, 1e-12);
  ASSERT_EQ(job.stragglers.size(), 1u);
  EXPECT_EQ(job.stragglers[0].rank, 3);
  EXPECT_FALSE(job.collectives.empty());
  EXPECT_TRUE(job.job_problems.empty());
  ASSERT_EQ(job.fixes.size(), 2u);
  EXPECT_EQ(job.fixes[0].loss, Loss::kHostBoundIdle);         // 50% of capacity
  EXPECT_EQ(job.fixes[1].loss, Loss::kExposedCommunication);  // the straggler's 0.054 s of 4 s
  EXPECT_NEAR(job.fixes[1].fraction, 0.054 / 4, 1e-12);
  EXPECT_TRUE(job.fixes[1].action.starts_with("rank 3 arrives late")) << job.fixes[1].action;
  EXPECT_EQ(job.quality.Get(model::Dq::kDuplicateInput), 2);
  EXPECT_EQ(job.quality.Get(model::Dq::kSkippedInput), 1);
  EXPECT_NEAR(job.bill.gpu_hours, 4.0 / 3600, 1e-12);  // the bill of the window, once
}

// A straggler that costs more than any loss of the ranks' own leads the fixes.
TEST(CombineRanks, AStragglerFixLeadsWhenItCostsMost) {
  std::vector<RankVerdict> ranks = StragglerRanks();
  for (auto& r : ranks) {
    r.run.useful_s = 0.999;
    r.run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = 0.001;  // under the 1% floor
  }
  const JobVerdict job = CombineRanks(std::move(ranks), Options());
  ASSERT_EQ(job.fixes.size(), 1u);
  EXPECT_EQ(job.fixes[0].loss, Loss::kExposedCommunication);
  EXPECT_EQ(job.fixes[0].culprits, (std::vector<std::string>{"rank 3"}));
}

}  // namespace
}  // namespace plasmient::job
