#include "join/join.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>

#include "join/layer_tree.h"
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
  Joined j = Join(t, t.quality);
  ASSERT_EQ(j.launch.size(), 3u);
  EXPECT_EQ(j.launch[0], model::ApiRowId(0));
  EXPECT_EQ(t.Str(t.cpu.name[j.op[0].index()]), "aten::addmm");  // innermost, not linear
  // A range named "nn.Module: X" is module X (TraceBuilder), the kernel's layer.
  EXPECT_FALSE(j.annotation[0].has_value());
  EXPECT_EQ(t.cpu.kind[j.layer[0].index()], CpuOpKind::kModule);
  EXPECT_EQ(t.Str(t.cpu.name[j.layer[0].index()]), "Linear_0");
  EXPECT_EQ(j.layer_source[0], LayerSource::kLaunch);
  EXPECT_EQ(j.layer_source[1], LayerSource::kNone);
  EXPECT_EQ(t.Str(t.cpu.name[j.op_parent[j.op[0].index()].index()]), "aten::linear");
  EXPECT_EQ(t.Str(t.cpu.name[j.op[1].index()]), "aten::mul");  // its own thread's op
  ASSERT_EQ(j.steps.size(), 1u);
  EXPECT_EQ(j.steps[0].number, 7);
  EXPECT_EQ(j.step[0], StepRowId(0));
  EXPECT_EQ(j.step[1], StepRowId(0));  // launched on thread 2 inside the step's time range
  EXPECT_FALSE(j.launch[2].has_value());
  EXPECT_FALSE(j.step[2].has_value());
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
  b.AddGpu({.start_ns = 500, .end_ns = 600, .name = "ncclKernel_SendRecv_RING_SIMPLE"});  // no op: a name
  b.AddGpu({.start_ns = 500, .end_ns = 600, .name = "ncclKernel_AllReduce_RING_LL_Sum_float"});
  b.AddGpu({.start_ns = 600, .end_ns = 700, .name = "Memcpy DtoD", .kind = GpuKind::kMemcpy});
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t, t.quality);
  EXPECT_EQ(j.cls[0], ActivityClass::kP2P);      // from record_param_comms "send"
  EXPECT_EQ(j.cls[1], ActivityClass::kCompute);  // a copy inside the comm op is still compute
  EXPECT_EQ(j.cls[2], ActivityClass::kCollective);
  EXPECT_EQ(j.cls[3], ActivityClass::kCollective);  // SendRecv alone may be an all-to-all
  EXPECT_EQ(j.cls[4], ActivityClass::kCollective);
  EXPECT_EQ(j.cls[5], ActivityClass::kMemory);
}

// Forward on thread 1: Model_0 > Block_0 > Linear_0 > aten::addmm (sequence 7) launching k0,
// and Block_0 again launching k1 directly. Backward on thread 2: AddmmBackward0 (sequence 7)
// launching k2, MulBackward0 (sequence 99, no forward op) launching k3; k4 outside everything.
model::Trace ModuleTrace() {
  TraceBuilder b;
  auto range = [&](TimeNs s, TimeNs e, std::int64_t tid, std::string_view name, CpuOpKind kind) {
    b.AddCpuOp({.start_ns = s, .end_ns = e, .pid = 1, .tid = tid, .name = name, .kind = kind});
  };
  range(0, 1000, 1, "nn.Module: Model_0", CpuOpKind::kAnnotation);
  range(10, 900, 1, "nn.Module: Block_0", CpuOpKind::kAnnotation);
  range(20, 300, 1, "nn.Module: Linear_0", CpuOpKind::kAnnotation);
  b.AddCpuOp({.start_ns = 30,
              .end_ns = 200,
              .pid = 1,
              .tid = 1,
              .name = "aten::addmm",
              .sequence = 7,
              .forward_thread = 0});
  b.AddApi({.start_ns = 40, .end_ns = 50, .pid = 1, .tid = 1, .correlation = 1});
  b.AddApi({.start_ns = 400, .end_ns = 410, .pid = 1, .tid = 1, .correlation = 2});
  b.AddCpuOp({.start_ns = 2000,
              .end_ns = 2500,
              .pid = 1,
              .tid = 2,
              .name = "autograd::engine::evaluate_function: AddmmBackward0",
              .sequence = 7,
              .forward_thread = 1});
  b.AddCpuOp({.start_ns = 2010,
              .end_ns = 2400,
              .pid = 1,
              .tid = 2,
              .name = "aten::mm",
              .sequence = 7,
              .forward_thread = 0});
  b.AddApi({.start_ns = 2020, .end_ns = 2030, .pid = 1, .tid = 2, .correlation = 3});
  b.AddCpuOp({.start_ns = 3000,
              .end_ns = 3500,
              .pid = 1,
              .tid = 2,
              .name = "MulBackward0",
              .sequence = 99,
              .forward_thread = 1});
  b.AddApi({.start_ns = 3010, .end_ns = 3020, .pid = 1, .tid = 2, .correlation = 4});
  b.AddApi({.start_ns = 4000, .end_ns = 4010, .pid = 1, .tid = 1, .correlation = 5});
  const char* const kernels[] = {"k0", "k1", "k2", "k3", "k4"};
  for (std::int64_t c = 1; c <= 5; ++c) {
    b.AddGpu({.start_ns = 100 * c, .end_ns = 100 * c + 50, .name = kernels[c - 1], .correlation = c});
  }
  return std::move(b).Finish();
}

TEST(Join, LayerOfLaunchThenOfTheForwardOpThenTheBackwardBranch) {
  model::Trace t = ModuleTrace();
  Joined j = Join(t, t.quality);
  auto name = [&](std::size_t i) {
    return j.layer[i].has_value() ? t.Str(t.cpu.name[j.layer[i].index()]) : std::string_view("-");
  };
  EXPECT_EQ(name(0), "Linear_0");
  EXPECT_EQ(j.layer_source[0], LayerSource::kLaunch);
  EXPECT_EQ(name(1), "Block_0");
  EXPECT_EQ(name(2), "Linear_0");  // AddmmBackward0 has the sequence number of Linear_0's addmm
  EXPECT_EQ(j.layer_source[2], LayerSource::kForward);
  EXPECT_EQ(name(3), "-");
  EXPECT_EQ(j.layer_source[3], LayerSource::kBackward);
  EXPECT_EQ(j.layer_source[4], LayerSource::kNone);

  LayerTree tree = BuildLayerTree(t, j, std::vector<char>(t.gpu.size(), 1));
  auto path = [&](std::size_t i) { return tree.nodes[tree.activity[i]].path; };
  EXPECT_EQ(path(0), "Model_0/Block_0/Linear_0");
  EXPECT_EQ(path(1), "Model_0/Block_0");
  EXPECT_EQ(path(2), "Model_0/Block_0/Linear_0");
  EXPECT_EQ(path(3), kBackwardNode);
  EXPECT_EQ(path(4), kNoModuleNode);
  const LayerNode& linear = tree.nodes[tree.activity[0]];
  EXPECT_EQ(linear.type, "Linear");
  EXPECT_EQ(linear.depth, 2);
  EXPECT_EQ(linear.calls, 1);  // one forward range, although two kernels joined it
  EXPECT_EQ(tree.nodes[linear.parent].path, "Model_0/Block_0");
  EXPECT_EQ(tree.nodes.size(), 5u);

  std::vector<char> only_first(t.gpu.size(), 0);
  only_first[0] = 1;
  LayerTree kept = BuildLayerTree(t, j, only_first);
  EXPECT_EQ(kept.nodes.size(), 3u);
  EXPECT_EQ(kept.activity[1], -1);
}

// Launches under ops carrying a Module Hierarchy: below an annotation, under an op without
// one, and under a string TraceBuilder was given malformed (the reader drops those; the tree
// must not trust its writers).
TEST(Join, ModuleHierarchyPlacesLaunchesNoModuleRangeEncloses) {
  model::TraceBuilder b;
  b.AddCpuOp({.start_ns = 0, .end_ns = 1000, .tid = 1, .name = "forward", .kind = CpuOpKind::kAnnotation});
  b.AddCpuOp({.start_ns = 10,
              .end_ns = 100,
              .tid = 1,
              .name = "aten::linear",
              .module_hierarchy = "top(Net)::forward.fc(Linear)::forward.aten::linear"});
  b.AddCpuOp({.start_ns = 20, .end_ns = 90, .tid = 1, .name = "aten::addmm"});
  b.AddCpuOp(
      {.start_ns = 200, .end_ns = 300, .tid = 1, .name = "aten::mul", .module_hierarchy = "top(Net.x"});
  for (std::int64_t c = 1; c <= 2; ++c) {
    b.AddApi({.start_ns = c == 1 ? 30 : 210, .end_ns = c == 1 ? 40 : 220, .tid = 1, .correlation = c});
    b.AddGpu({.start_ns = 500 * c, .end_ns = 500 * c + 50, .name = "k", .correlation = c});
  }
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t, t.quality);
  LayerTree tree = BuildLayerTree(t, j, std::vector<char>(t.gpu.size(), 1));
  const LayerNode& fc = tree.nodes[tree.activity[0]];
  EXPECT_EQ(fc.path, "forward/top/fc");
  EXPECT_EQ(fc.type, "Linear");
  EXPECT_EQ(fc.calls, 1);
  EXPECT_EQ(tree.nodes[fc.parent].type, "Net");
  EXPECT_EQ(tree.nodes[fc.parent].calls, 0);
  EXPECT_EQ(tree.nodes[tree.activity[1]].path, "forward");  // malformed: the enclosing range
}

TEST(Join, ModuleTypeDropsTheInstanceNumber) {
  EXPECT_EQ(ModuleType("Qwen2Attention_3"), "Qwen2Attention");
  EXPECT_EQ(ModuleType("Linear_12"), "Linear");
  EXPECT_EQ(ModuleType("Linear"), "Linear");
  EXPECT_EQ(ModuleType("layer_norm_"), "layer_norm_");
  EXPECT_EQ(ModuleType("_3"), "_3");
  EXPECT_EQ(ModuleType("fc2"), "fc2");
}

// One SendRecv kernel launched under `ranges` (outermost first, each nested in the one before),
// the innermost range carrying `collective_on_innermost` as collective arguments when given.
Joined JoinSendRecvUnder(std::initializer_list<std::pair<std::string_view, CpuOpKind>> ranges,
                         std::string_view collective_on_innermost, model::Trace& t) {
  TraceBuilder b;
  TimeNs at = 0;
  std::int32_t row = -1;
  for (auto [name, kind] : ranges) {
    row = b.AddCpuOp({.start_ns = at, .end_ns = 1000 - at, .tid = 1, .name = name, .kind = kind});
    at += 10;
  }
  if (!collective_on_innermost.empty()) b.AddCollective({.cpu_op = row, .name = collective_on_innermost});
  b.AddApi({.start_ns = 100, .end_ns = 110, .tid = 1, .name = "cudaLaunchKernel", .correlation = 1});
  auto g = b.AddGpu({.start_ns = 200,
                     .end_ns = 300,
                     .name = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t",
                     .correlation = 1});
  b.AddCollective({.gpu = g, .name = "sendrecv"});  // what the Kineto reader reads off the name
  t = std::move(b).Finish();
  return Join(t, t.quality);
}

constexpr auto kOp = CpuOpKind::kOp;
constexpr auto kRange = CpuOpKind::kAnnotation;

TEST(Join, AllToAllInSendRecvKernelsIsACollective) {
  // TorchRec on NCCL: the nccl:all_to_all annotation sits inside record_param_comms (no args).
  model::Trace t;
  Joined j = JoinSendRecvUnder({{"## all2all_data:kjt splits ##", kRange},
                                {"c10d::alltoall_base_", kOp},
                                {"record_param_comms", kOp},
                                {"nccl:all_to_all", kRange}},
                               "all_to_all", t);
  EXPECT_EQ(j.cls[0], ActivityClass::kCollective);
  ASSERT_TRUE(j.collective[0].has_value());
  EXPECT_EQ(t.Str(t.collectives.name[j.collective[0].index()]), "all_to_all");
  // Without the nccl:* range, the c10d op names it; without that, the model's own annotation.
  j = JoinSendRecvUnder({{"c10d::allreduce_", kOp}, {"record_param_comms", kOp}}, "", t);
  EXPECT_EQ(j.cls[0], ActivityClass::kCollective);
  j = JoinSendRecvUnder({{"## alltoall_fwd_single ##", kRange}}, "", t);
  EXPECT_EQ(j.cls[0], ActivityClass::kCollective);
}

TEST(Join, PipelineSendRecvNeedsAnOpThatSaysSo) {
  model::Trace t;
  Joined j =
      JoinSendRecvUnder({{"c10d::send", kOp}, {"record_param_comms", kOp}, {"nccl:send", kRange}}, "", t);
  EXPECT_EQ(j.cls[0], ActivityClass::kP2P);
  j = JoinSendRecvUnder({{"record_param_comms", kOp}}, "recv", t);  // collective args say recv
  EXPECT_EQ(j.cls[0], ActivityClass::kP2P);
  // NCCL's NVTX ranges: a group end names nothing, the batch_isend_irecv around it does.
  j = JoinSendRecvUnder({{"batch_isend_irecv", kRange}, {"ncclGroupEnd", kRange}}, "", t);
  EXPECT_EQ(j.cls[0], ActivityClass::kP2P);
  j = JoinSendRecvUnder({{"ncclAllReduce", kRange}}, "", t);
  EXPECT_EQ(j.cls[0], ActivityClass::kCollective);
  j = JoinSendRecvUnder({{"aten::to", kOp}}, "", t);  // no evidence: never a pipeline bubble
  EXPECT_EQ(j.cls[0], ActivityClass::kCollective);
}

TEST(Join, WorkQueuedBeforeProfilingIsMarkedAndCountedWithItsGpuTime) {
  TraceBuilder b;
  b.AddCpuOp({.start_ns = 1000, .end_ns = 5000, .tid = 1, .name = "aten::mm"});
  b.AddApi({.start_ns = 1100, .end_ns = 1200, .tid = 1, .name = "cudaLaunchKernel", .correlation = 50});
  b.AddGpu({.start_ns = 500, .end_ns = 800, .name = "before_the_first_host_event"});
  b.AddGpu({.start_ns = 1000, .end_ns = 1400, .name = "queued_earlier", .correlation = 40});
  b.AddGpu({.start_ns = 1400, .end_ns = 1500, .name = "launched", .correlation = 50});
  b.AddGpu({.start_ns = 1500, .end_ns = 1600, .name = "launch_lost", .correlation = 60});
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t, t.quality);
  EXPECT_EQ(j.queued_before_profiling, (std::vector<char>{1, 1, 0, 0}));
  EXPECT_EQ(t.quality.Get(model::Dq::kQueuedBeforeProfiling), 2);
  EXPECT_DOUBLE_EQ(t.quality.GpuSeconds(model::Dq::kQueuedBeforeProfiling), 700e-9);
  EXPECT_EQ(t.quality.Get(model::Dq::kKernelNoLaunch), 1);  // only the one launched while profiling
}

TEST(Join, NothingIsQueuedBeforeProfilingWithoutHostEvents) {
  TraceBuilder b;
  b.AddGpu({.start_ns = 500, .end_ns = 800, .name = "k", .correlation = 3});
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t, t.quality);
  EXPECT_EQ(j.queued_before_profiling, (std::vector<char>{0}));
  EXPECT_EQ(t.quality.Get(model::Dq::kKernelNoLaunch), 1);
}

TEST(Join, CorrelationIsPerProcessWhenTheGpuRowKnowsItsProcess) {
  TraceBuilder b;
  b.AddApi({.start_ns = 0, .end_ns = 1, .pid = 1, .tid = 1, .correlation = 42});
  b.AddApi({.start_ns = 5, .end_ns = 6, .pid = 2, .tid = 1, .correlation = 42});
  b.AddGpu({.start_ns = 10, .end_ns = 20, .pid = 2, .name = "k", .correlation = 42});
  model::Trace t = std::move(b).Finish();
  Joined j = Join(t, t.quality);
  EXPECT_EQ(j.launch[0], model::ApiRowId(1));
}

// Enough ranges and launches on three threads that the nesting is walked in parts on several
// threads; ties at equal starts (a longer range first, a launch after the ranges it ties with)
// included. Every thread count gives the one-thread answer.
TEST(Join, NestingInPartsOfThreadsIsTheSameOnAnyThreadCount) {
  TraceBuilder b;
  constexpr int kGroups = 13000;  // 3 threads x 13,000 x 3 ranges: several parts' worth
  std::int64_t correlation = 1;
  for (int g = 0; g < kGroups; ++g) {
    for (std::int64_t tid = 1; tid <= 3; ++tid) {
      const TimeNs t0 = g * 1000;
      b.AddCpuOp({.start_ns = t0,
                  .end_ns = t0 + 500,
                  .tid = tid,
                  .name = "nn.Module: Block_0",
                  .kind = CpuOpKind::kAnnotation});
      b.AddCpuOp({.start_ns = t0, .end_ns = t0 + 400, .tid = tid, .name = "aten::linear"});
      b.AddCpuOp({.start_ns = t0 + 100, .end_ns = t0 + 300, .tid = tid, .name = "aten::addmm"});
      // The second thread's launch starts where its op does: it is inside it.
      const TimeNs launch = tid == 2 ? t0 + 100 : t0 + 150;
      b.AddApi({.start_ns = launch,
                .end_ns = launch + 10,
                .tid = tid,
                .name = "cudaLaunchKernel",
                .correlation = correlation});
      b.AddGpu({.start_ns = launch + 20, .end_ns = launch + 40, .name = "gemm", .correlation = correlation});
      ++correlation;
    }
  }
  model::Trace t = std::move(b).Finish();
  model::DataQuality quality;
  const Joined one = Join(t, quality, 1);
  for (std::size_t threads : {2, 5}) {
    const Joined many = Join(t, quality, threads);
    EXPECT_EQ(many.op_parent, one.op_parent) << threads;
    EXPECT_EQ(many.op, one.op) << threads;
    EXPECT_EQ(many.annotation, one.annotation) << threads;
    EXPECT_EQ(many.layer, one.layer) << threads;
  }
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    ASSERT_TRUE(one.op[i].has_value()) << i;
    EXPECT_EQ(t.Str(t.cpu.name[one.op[i].index()]), "aten::addmm") << i;
    EXPECT_EQ(t.Str(t.cpu.name[one.op_parent[one.op[i].index()].index()]), "aten::linear") << i;
    ASSERT_TRUE(one.layer[i].has_value()) << i;
  }
}

// The words as a byte-by-byte search would find them, ASCII letters compared without case.
bool CommWordByteByByte(std::string_view name) {
  for (std::string_view w : {"nccl", "rccl", "multimem_all_reduce", "cross_device_reduce", "nvshmem", "msccl",
                             "::internode::", "::intranode::"}) {
    auto same = [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    };
    if (std::search(name.begin(), name.end(), w.begin(), w.end(), same) != name.end()) return true;
  }
  return false;
}

TEST(IsCommKernelName, FindsTheWordsInAnyCaseAsAByteSearchWould) {
  EXPECT_TRUE(IsCommKernelName("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"));
  EXPECT_TRUE(IsCommKernelName("void vllm::cross_device_reduce_1stage<float, 8>(...)"));
  EXPECT_TRUE(IsCommKernelName("MULTIMEM_ALL_REDUCE_kernel"));
  EXPECT_TRUE(IsCommKernelName("Cijk_RCCL_like"));
  EXPECT_FALSE(IsCommKernelName("sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64"));
  // Expert-parallel all-to-all kernels (DeepEP) and NVSHMEM: communication without an NCCL name.
  EXPECT_TRUE(IsCommKernelName("void deep_ep::intranode::dispatch<8, 768>(int4*, float*, int*)"));
  EXPECT_TRUE(IsCommKernelName("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16>(int4*)"));
  EXPECT_TRUE(IsCommKernelName("nvshmemi_transfer_rma_kernel"));
  EXPECT_FALSE(IsCommKernelName("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*)"));
  EXPECT_FALSE(IsCommKernelName(""));
  // Names short and long, from an alphabet of the words' letters in both cases and the bytes that
  // differ from them only in bit 5 ('_' and DEL, '@' and '`'), which are other characters.
  const std::string alphabet = "nNcCrRlLmMuUtTiIeEaAdDoOsSvV_\x7f@`x";
  std::mt19937 rng(7);
  int found = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t size = trial < 2000 ? static_cast<std::size_t>(trial % 40) : 500 + rng() % 30;
    std::string name(size, 'x');
    for (char& c : name) c = alphabet[rng() % alphabet.size()];
    if (trial % 3 == 0 && size >= 20) {  // plant a word, in a random case
      std::string_view words[] = {"nccl", "rccl", "multimem_all_reduce", "cross_device_reduce"};
      std::string_view w = words[rng() % 4];
      std::size_t at = rng() % (size - w.size() + 1);
      for (std::size_t k = 0; k < w.size(); ++k)
        name[at + k] = static_cast<char>(w[k] ^ (rng() % 2 ? 0x20 : 0));
    }
    const bool want = CommWordByteByByte(name);
    found += want ? 1 : 0;
    ASSERT_EQ(IsCommKernelName(name), want) << name;
  }
  EXPECT_GT(found, 3000);
}

}  // namespace
}  // namespace plasmient::join
