#include "verdict/comm_roles.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"
#include "verdict/analyze.h"
#include "verdict/testing/test_options.h"

namespace plasmient::verdict {
namespace {

using join::CollectiveKind;
using model::CpuOpKind;

constexpr TimeNs kMicro = 1000;

RoleFound RoleFor(std::vector<std::string> names, CollectiveKind kind, bool backward = false,
                  bool in_layer = false) {
  static std::vector<std::string> kept;  // RoleFound::name views into the context's names
  RoleContext c{std::move(names), kind, backward, in_layer};
  RoleFound f = RoleOf(c);
  if (!f.name.empty()) {
    kept.emplace_back(f.name);
    f.name = kept.back();
  }
  return f;
}

TEST(CommRoles, ANameSaysARoleOnlyForTheKindsThatRoleUses) {
  EXPECT_EQ(RoleFor({"## sparse_data_dist ##"}, CollectiveKind::kAllToAll).role, CommRole::kEmbedding);
  EXPECT_EQ(RoleFor({"all2all_data:kjt splits"}, CollectiveKind::kAllToAll).role, CommRole::kEmbedding);
  EXPECT_EQ(RoleFor({"nn.module: mixtralsparsemoeblock_3"}, CollectiveKind::kAllToAll).role, CommRole::kMoe);
  // An all-reduce inside an MoE block reduces the experts' tensor-parallel shards.
  EXPECT_EQ(RoleFor({"mixtralsparsemoeblock_3", "mesh_tp"}, CollectiveKind::kAllReduce).role,
            CommRole::kTensorParallel);
  EXPECT_EQ(RoleFor({"mesh_tp"}, CollectiveKind::kAllGather).role, CommRole::kTensorParallel);
  EXPECT_EQ(RoleFor({"tensor_model_parallel_group"}, CollectiveKind::kAllReduce).role,
            CommRole::kTensorParallel);
  EXPECT_EQ(RoleFor({"fsdp::all_gather"}, CollectiveKind::kAllGather).role, CommRole::kDataParallel);
  EXPECT_EQ(RoleFor({"dp_replicate"}, CollectiveKind::kAllReduce).role, CommRole::kDataParallel);
  EXPECT_EQ(RoleFor({"mesh_pp"}, CollectiveKind::kSend).role, CommRole::kPipeline);
  // A gather inside the optimizer's step is a sharded optimizer's, not data parallelism's, though
  // the step may run inside a data-parallel wrapper's range.
  EXPECT_EQ(RoleFor({"c10d::_allgather_base_", "optimizer.step#shampoo.step", "## optimizer ##"},
                    CollectiveKind::kAllGather)
                .role,
            CommRole::kOptimizer);
  EXPECT_EQ(
      RoleFor({"zeroredundancyoptimizer.step", "distributeddataparallel"}, CollectiveKind::kBroadcast).role,
      CommRole::kOptimizer);
  // An optimizer never sends point to point or exchanges all-to-all.
  EXPECT_EQ(RoleFor({"## optimizer ##"}, CollectiveKind::kAllToAll).role, CommRole::kUnknown);
  // "tp" or "ep" inside a word says nothing.
  EXPECT_EQ(RoleFor({"output_step"}, CollectiveKind::kAllReduce).role, CommRole::kUnknown);
  EXPECT_EQ(RoleFor({"sleep_kernel"}, CollectiveKind::kAllToAll).role, CommRole::kUnknown);
  // The innermost name that says a role wins.
  RoleFound f = RoleFor({"aten::all_to_all", "## sparse_data_dist ##", "mesh_dp"}, CollectiveKind::kAllToAll);
  EXPECT_EQ(f.role, CommRole::kEmbedding);
  EXPECT_EQ(f.how, RoleEvidence::kNamed);
  EXPECT_EQ(f.name, "## sparse_data_dist ##");
}

TEST(CommRoles, WithNoNameThePlacementSaysTheRoleOrNothingDoes) {
  RoleFound grad = RoleFor({"autograd::engine::evaluate_function"}, CollectiveKind::kAllReduce, true);
  EXPECT_EQ(grad.role, CommRole::kDataParallel);
  EXPECT_EQ(grad.how, RoleEvidence::kPlaced);
  EXPECT_EQ(RoleFor({}, CollectiveKind::kAllReduce, false, true).role, CommRole::kTensorParallel);
  EXPECT_EQ(RoleFor({}, CollectiveKind::kRecv).role, CommRole::kPipeline);
  // An all-to-all is not assumed to be MoE, nor anything else.
  RoleFound a2a = RoleFor({"aten::all_to_all"}, CollectiveKind::kAllToAll, false, true);
  EXPECT_EQ(a2a.role, CommRole::kUnknown);
  EXPECT_EQ(a2a.how, RoleEvidence::kNone);
  EXPECT_EQ(RoleFor({}, CollectiveKind::kAllReduce).role, CommRole::kUnknown);
}

struct CommRank {
  model::TraceBuilder b;
  std::int64_t corr = 1;
  // A collective kernel over [start, end) µs launched at `start - 5` µs on thread 1, described by
  // a Collectives row of `collective` in process group `pg`.
  void Collective(std::string_view kernel, std::string_view collective, std::string_view pg, TimeNs start,
                  TimeNs end) {
    b.AddApi({.start_ns = (start - 5) * kMicro,
              .end_ns = (start - 2) * kMicro,
              .pid = 1,
              .tid = 1,
              .name = "cudaLaunchKernel",
              .correlation = corr});
    const std::int32_t g = b.AddGpu({.start_ns = start * kMicro,
                                     .end_ns = end * kMicro,
                                     .stream = 20,
                                     .name = kernel,
                                     .correlation = corr++});
    b.AddCollective({.gpu = g, .name = collective, .group_size = 8, .pg_name = pg});
  }
  void Range(std::string_view name, TimeNs start, TimeNs end, CpuOpKind kind = CpuOpKind::kAnnotation) {
    b.AddCpuOp(
        {.start_ns = start * kMicro, .end_ns = end * kMicro, .pid = 1, .tid = 1, .name = name, .kind = kind});
  }
};

// Each exposed collective's time goes to the role its context names, and an unnamed all-to-all is
// not called MoE (the causes and the fix it gets: diagnose/fixes_test.cc).
TEST(CommRoles, ExposedTimeGoesToTheRoleItsLaunchContextNames) {
  CommRank r;
  r.Range("## sparse_data_dist ##", 0, 100);
  r.Collective("ncclDevKernel_SendRecv", "all_to_all", "0", 10, 610);  // 600 µs: embedding
  r.Range("nn.Module: DeepseekMoE_0", 700, 800, CpuOpKind::kModule);
  r.Collective("ncclDevKernel_SendRecv", "all_to_all", "0", 710, 910);    // 200 µs: MoE
  r.Collective("ncclDevKernel_SendRecv", "all_to_all", "0", 1010, 1110);  // 100 µs: unknown
  r.Collective("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "allreduce", "mesh_tp", 1210, 1310);  // 100: TP
  model::Trace t = std::move(r.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const CommRoles& c = v->evidence.comm_roles;
  EXPECT_NEAR(c[CommRole::kEmbedding].exposed_s, 600e-6, 1e-12);
  EXPECT_NEAR(c[CommRole::kMoe].exposed_s, 200e-6, 1e-12);
  EXPECT_NEAR(c[CommRole::kUnknown].exposed_s, 100e-6, 1e-12);
  EXPECT_NEAR(c[CommRole::kTensorParallel].exposed_s, 100e-6, 1e-12);
  EXPECT_NEAR(c.total_s(), v->evidence.exposed_comm_total_s(), 1e-12);
  ASSERT_FALSE(c[CommRole::kEmbedding].names.empty());
  EXPECT_EQ(c[CommRole::kEmbedding].names.front().name, "## sparse_data_dist ##");
  EXPECT_EQ(c[CommRole::kEmbedding].named, 1);
}

}  // namespace
}  // namespace plasmient::verdict
