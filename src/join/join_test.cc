#include "join/join.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace plasmient::join {
namespace {

using model::CpuOpKind;
using model::GpuKind;
using model::TraceBuilder;

// A step on thread 1 with linear -> addmm launching a GEMM, and an autograd op on thread 2.
TraceBuilder TwoThreadTrace(bool external_id_equals_correlation) {
  TraceBuilder b;
  b.AddCpuOp({.start_ns = 0,
              .end_ns = 1000,
              .pid = 10,
              .tid = 1,
              .name = "ProfilerStep#7",
              .kind = CpuOpKind::kStep,
              .step = 7});
  b.AddCpuOp({.start_ns = 10,
              .end_ns = 500,
              .pid = 10,
              .tid = 1,
              .name = "nn.Module: Linear_0",
              .kind = CpuOpKind::kAnnotation});
  b.AddCpuOp(
      {.start_ns = 20, .end_ns = 400, .pid = 10, .tid = 1, .name = "aten::linear", .external_id = 100});
  b.AddCpuOp({.start_ns = 30, .end_ns = 300, .pid = 10, .tid = 1, .name = "aten::addmm", .external_id = 101});
  b.AddApi({.start_ns = 40,
            .end_ns = 60,
            .pid = 10,
            .tid = 1,
            .name = "cudaLaunchKernel",
            .correlation = 5,
            .external_id = 101});
  // Thread 2: an op whose time range covers the first launch but lives on another thread.
  b.AddCpuOp({.start_ns = 0, .end_ns = 900, .pid = 10, .tid = 2, .name = "aten::mul"});
  b.AddApi(
      {.start_ns = 600, .end_ns = 610, .pid = 10, .tid = 2, .name = "cudaLaunchKernel", .correlation = 6});
  std::int64_t ext = external_id_equals_correlation ? 5 : 101;
  b.AddGpu(
      {.start_ns = 100, .end_ns = 200, .name = "sm90_xmma_gemm_bf16", .correlation = 5, .external_id = ext});
  b.AddGpu({.start_ns = 700,
            .end_ns = 800,
            .name = "vectorized_elementwise_kernel",
            .correlation = 6,
            .external_id = external_id_equals_correlation ? 6 : model::kNoId});
  b.AddGpu({.start_ns = 900, .end_ns = 950, .name = "orphan", .correlation = 99});
  return b;
}

class JoinBothExternalIdStyles : public ::testing::TestWithParam<bool> {};

TEST_P(JoinBothExternalIdStyles, LaunchOpAnnotationAndStepByContainment) {
  model::Trace t = std::move(TwoThreadTrace(GetParam())).Finish();
  Joined j = Join(t);
  ASSERT_EQ(j.launch.size(), 3u);
  EXPECT_EQ(j.launch[0], 0);
  EXPECT_EQ(t.Str(t.cpu.name[j.op[0]]), "aten::addmm");  // innermost, not linear
  EXPECT_EQ(t.Str(t.cpu.name[j.annotation[0]]), "nn.Module: Linear_0");
  EXPECT_EQ(t.Str(t.cpu.name[j.op_parent[j.op[0]]]), "aten::linear");
  EXPECT_EQ(t.Str(t.cpu.name[j.op[1]]), "aten::mul");  // its own thread's op
  ASSERT_EQ(j.steps.size(), 1u);
  EXPECT_EQ(j.steps[0].number, 7);
  EXPECT_EQ(j.step[0], 0);
  EXPECT_EQ(j.step[1], 0);  // launched on thread 2 inside the step's time range
  EXPECT_EQ(j.launch[2], -1);
  EXPECT_EQ(j.step[2], -1);
  EXPECT_EQ(t.quality.Get(model::Dq::kKernelNoLaunch), 1);
  EXPECT_EQ(j.external_id_equals_correlation, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Styles, JoinBothExternalIdStyles, ::testing::Values(false, true));

TEST(Join, CommunicationFromArgsThenOpsThenNames) {
  TraceBuilder b;
  auto rpc = b.AddCpuOp({.start_ns = 0, .end_ns = 100, .tid = 1, .name = "record_param_comms"});
  b.AddCollective({.cpu_op = rpc, .name = "send", .in_nelems = 1024, .dtype = "Float"});
  b.AddApi({.start_ns = 10, .end_ns = 20, .tid = 1, .name = "cudaLaunchKernel", .correlation = 1});
  b.AddApi({.start_ns = 30, .end_ns = 40, .tid = 1, .name = "cudaLaunchKernel", .correlation = 2});
  b.AddGpu({.start_ns = 100, .end_ns = 200, .name = "ncclDevKernel_Generic", .correlation = 1});
  b.AddGpu({.start_ns = 100, .end_ns = 200, .name = "CatArrayBatchedCopy", .correlation = 2});
  auto g = b.AddGpu({.start_ns = 300, .end_ns = 400, .name = "ncclDevKernel_Generic"});
  b.AddCollective({.gpu = g, .name = "allreduce"});
  b.AddGpu({.start_ns = 500, .end_ns = 600, .name = "ncclKernel_SendRecv_RING_SIMPLE"});
  b.AddGpu({.start_ns = 500, .end_ns = 600, .name = "ncclKernel_AllReduce_RING_LL_Sum_float"});
  b.AddGpu({.start_ns = 600, .end_ns = 700, .name = "Memcpy DtoD", .kind = GpuKind::kMemcpy});
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t);
  EXPECT_EQ(j.cls[0], ActivityClass::kP2P);      // from record_param_comms "send"
  EXPECT_EQ(j.cls[1], ActivityClass::kCompute);  // a copy inside the comm op is still compute
  EXPECT_EQ(j.cls[2], ActivityClass::kCollective);
  EXPECT_EQ(j.cls[3], ActivityClass::kP2P);
  EXPECT_EQ(j.cls[4], ActivityClass::kCollective);
  EXPECT_EQ(j.cls[5], ActivityClass::kMemory);
}

TEST(Join, CorrelationIsPerProcessWhenTheGpuRowKnowsItsProcess) {
  TraceBuilder b;
  b.AddApi({.start_ns = 0, .end_ns = 1, .pid = 1, .tid = 1, .correlation = 42});
  b.AddApi({.start_ns = 5, .end_ns = 6, .pid = 2, .tid = 1, .correlation = 42});
  b.AddGpu({.start_ns = 10, .end_ns = 20, .pid = 2, .name = "k", .correlation = 42});
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t);
  EXPECT_EQ(j.launch[0], 1);
}

}  // namespace
}  // namespace plasmient::join
