#include "verdict/analyze.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"
#include "roofline/device_table.h"
#include "roofline/op_cost.h"
#include "verdict/facts.h"
#include "verdict/testing/launch_builder.h"
#include "verdict/testing/test_options.h"

namespace plasmient::verdict {
namespace {

using model::CpuOpKind;
using model::GpuKind;
using model::TraceBuilder;

using testing::kBw;
using testing::kMmDims;
using testing::kMmTypes;
using testing::kPeak;

AnalyzeOptions Options() { return testing::TestOptions(); }

// Op -> launch -> kernel rows (verdict/testing/launch_builder.h), and ProfilerStep ranges.
struct Builder : testing::LaunchBuilder {
  // ProfilerStep#number over the launches of the 1 ms of GPU time from base.
  void Step(std::int64_t number, TimeNs base) {
    b.AddCpuOp({.start_ns = base / 10,
                .end_ns = (base + 1'000'000) / 10,
                .pid = 1,
                .tid = 1,
                .name = "ProfilerStep#" + std::to_string(number),
                .kind = CpuOpKind::kStep,
                .step = number});
  }
};

constexpr std::string_view kAddDims = "[[1048576],[1048576],[]]";
constexpr std::string_view kAddTypes = "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]";

TEST(AnalyzeRank, EveryLossCategoryWithExactFractions) {
  Builder t;
  t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 100'000);
  t.Kernel("aten::add", kAddDims, kAddTypes, "vectorized_elementwise_kernel", 100'000, 150'000);
  t.Kernel("aten::my_custom_op", "", "", "my_custom_kernel", 150'000, 160'000);
  // idle 160..200 us
  t.Kernel("", "", "", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 200'000, 260'000);
  t.Kernel("c10d::send", "", "", "ncclDevKernel_SendRecv", 260'000, 300'000);  // a pipeline send
  t.Kernel("", "", "", "Memcpy DtoH", 300'000, 310'000, GpuKind::kMemcpy);
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, Options());
  ASSERT_TRUE(v) << v.error().message;

  auto mm = roofline::EstimateOp("aten::mm", kMmDims, kMmTypes, "");
  auto add = roofline::EstimateOp("aten::add", kAddDims, kAddTypes, "");
  ASSERT_GT(mm.flops, 0);
  ASSERT_GT(mm.flops / mm.bytes, kPeak / kBw);  // over the ridge: compute
  ASSERT_GE(add.flops, 0);
  ASSERT_LT(add.flops / add.bytes, kPeak / kBw);  // under it: memory
  const double T = 310e-6;
  const double mm_useful = mm.flops / kPeak, add_useful = add.flops / kPeak;
  const Figures& f = v->run;
  EXPECT_NEAR(f.wall_s, T, 1e-15);
  EXPECT_NEAR(f.achieved(), (mm_useful + add_useful) / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kComputeInefficiency), (100e-6 - mm_useful) / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kMemoryBound), (50e-6 - add_useful) / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kUnmodeledKernels), 10e-6 / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kHostBoundIdle), 40e-6 / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kExposedCommunication), 60e-6 / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kPipelineBubble), 40e-6 / T, 1e-12);
  EXPECT_NEAR(f.loss(Loss::kDataMovement), 10e-6 / T, 1e-12);
  double sum = f.achieved();
  for (std::size_t i = 0; i < kLossCount; ++i) sum += f.loss(static_cast<Loss>(i));
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_NEAR(f.utilization(), 260e-6 / T, 1e-12);  // memcpy and idle are not kernels
  EXPECT_NEAR(v->communication_s, 100e-6, 1e-15);
  EXPECT_EQ(v->top_kernels.front().name, "sm90_xmma_gemm_bf16bf16_bf16f32");
  EXPECT_EQ(v->top_kernels.front().op, "aten::mm");
  EXPECT_EQ(v->quality.Get(model::Dq::kUnmodeledKernel), 1);
  EXPECT_EQ(trace.quality.Get(model::Dq::kUnmodeledKernel), 0);  // the trace is as ingest left it
}

// bf16 and fp8 GEMMs on an H100: P is bf16's (most FLOPs), and the fp8 GEMM's useful time is
// its FLOPs at the FP8 peak, not at P, where it would read above 100% and be clamped.
TEST(AnalyzeRank, Fp8WorkIsPricedAgainstTheFp8PeakInTheHeadline) {
  constexpr std::string_view kBigDims = "[[8192,8192],[8192,8192]]";
  constexpr std::string_view kFp8Dims = "[[8192,8192],[8192,8192],[],[]]";
  constexpr std::string_view kFp8Types = R"(["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float"])";
  Builder t;
  t.Kernel("aten::mm", kBigDims, kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 2'000'000);
  t.Kernel("aten::mm", kBigDims, kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 2'000'000, 4'000'000);
  t.Kernel("aten::_scaled_mm", kFp8Dims, kFp8Types, "sm90_xmma_gemm_e4m3e4m3_bf16f32", 4'000'000, 5'000'000);
  model::Trace trace = std::move(t.b).Finish();
  AnalyzeOptions o;
  o.gpu = "h100_sxm";
  auto v = AnalyzeRank(trace, o);
  ASSERT_TRUE(v) << v.error().message;

  const auto h100 = roofline::FindDeviceByKey("h100_sxm");
  ASSERT_TRUE(h100);
  const double p_bf16 = roofline::PeakFlops(*h100->spec, roofline::Dtype::kBf16, roofline::MathMode::kTf32);
  const double p_fp8 = roofline::PeakFlops(*h100->spec, roofline::Dtype::kFp8, roofline::MathMode::kTf32);
  ASSERT_GT(p_fp8, 1.5 * p_bf16);
  const double flops = 2.0 * 8192 * 8192 * 8192;  // each GEMM
  EXPECT_EQ(v->device.peak_dtype, "bf16");
  // 2 × bf16 at P_bf16 + fp8 at P_fp8, over 5 ms.
  EXPECT_NEAR(v->run.achieved(), (2 * flops / p_bf16 + flops / p_fp8) / 5e-3, 1e-9);
  const double fp8_fraction = flops / p_fp8 / 1e-3;  // under 1: the kernel's own achieved fraction
  ASSERT_LT(fp8_fraction, 1);
  EXPECT_NEAR(v->run.loss(Loss::kComputeInefficiency),
              (2 * (2e-3 - flops / p_bf16) + (1e-3 - flops / p_fp8)) / 5e-3, 1e-9);
}

// Keeps a copy of the facts table an observer is handed.
struct FactsCopy : RankObserver {
  ActivityFacts facts;
  void OnRank(const RankDetail& d) override { facts = d.facts; }
};

// AnalyzeRank with Options(), handing `copy` the facts table.
Result<RankVerdict> AnalyzeKeepingFacts(const model::Trace& trace, FactsCopy& copy) {
  AnalyzeOptions o = Options();
  o.observer = &copy;
  return AnalyzeRank(trace, o);
}

TEST(AnalyzeRank, TheFactsTableHoldsEachActivitysRooflinePointBoundAndShare) {
  Builder t;
  t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 100'000);
  t.Kernel("aten::add", kAddDims, kAddTypes, "vectorized_elementwise_kernel", 100'000, 150'000);
  t.Kernel("aten::my_custom_op", "", "", "my_custom_kernel", 150'000, 160'000);
  t.Kernel("", "", "", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 200'000, 260'000);
  t.Kernel("", "", "", "Memcpy DtoH", 300'000, 310'000, GpuKind::kMemcpy);
  model::Trace trace = std::move(t.b).Finish();
  FactsCopy copy;
  auto v = AnalyzeKeepingFacts(trace, copy);
  ASSERT_TRUE(v) << v.error().message;
  const ActivityFacts& f = copy.facts;
  ASSERT_EQ(f.size(), 5u);

  auto mm = roofline::EstimateOp("aten::mm", kMmDims, kMmTypes, "");
  auto add = roofline::EstimateOp("aten::add", kAddDims, kAddTypes, "");
  // The GEMM: over the ridge, its ceiling is the peak.
  EXPECT_EQ(f.cls[0], join::ActivityClass::kCompute);
  EXPECT_DOUBLE_EQ(f.flops[0], mm.flops);
  EXPECT_DOUBLE_EQ(f.arithmetic_intensity[0], mm.flops / mm.bytes);
  EXPECT_DOUBLE_EQ(f.ceiling_flops_per_s[0], kPeak);
  EXPECT_NEAR(f.achieved_fraction[0], mm.flops / 100e-6 / kPeak, 1e-12);
  EXPECT_NEAR(f.roofline_fraction[0], f.achieved_fraction[0], 1e-12);
  EXPECT_EQ(f.bound[0], Bound::kCompute);
  EXPECT_EQ(f.loss[0], Loss::kComputeInefficiency);
  EXPECT_DOUBLE_EQ(f.share_ns[0], 100'000);
  EXPECT_NEAR(f.useful_ns[0], mm.flops / kPeak * 1e9, 1e-6);
  // The add: under the ridge, its ceiling is AI · BW.
  EXPECT_NEAR(f.ceiling_flops_per_s[1], add.flops / add.bytes * kBw, 1e-3);
  EXPECT_EQ(f.bound[1], Bound::kMemory);
  EXPECT_NEAR(f.bytes_per_s[1], add.bytes / 50e-6, 1e-3);
  // No model: no intensity, no achieved figure, unmodeled.
  EXPECT_EQ(f.arithmetic_intensity[2], -1);
  EXPECT_EQ(f.achieved_fraction[2], 0);
  EXPECT_EQ(f.bound[2], Bound::kUnmodeled);
  // Communication and copies by their class; exposed time is their share.
  EXPECT_EQ(f.bound[3], Bound::kCommunication);
  EXPECT_EQ(f.loss[3], Loss::kExposedCommunication);
  EXPECT_DOUBLE_EQ(f.share_ns[3], 60'000);
  EXPECT_EQ(f.bound[4], Bound::kMemoryCopy);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_TRUE(f.kept[i]);
    EXPECT_EQ(f.step_number[i], -1);          // no ProfilerStep ranges
    EXPECT_EQ(f.peak_flops_per_s[i], kPeak);  // --peak-tflops judges every dtype
  }
  // The top kernels are the table's rows summed.
  const KernelAggregate& gemm = v->top_kernels.front();
  EXPECT_EQ(gemm.name, "sm90_xmma_gemm_bf16bf16_bf16f32");
  EXPECT_EQ(gemm.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(gemm.achieved_fraction(), f.achieved_fraction[0]);
  EXPECT_NEAR(gemm.lost_s, (f.share_ns[0] - f.useful_ns[0]) * 1e-9, 1e-15);
}

// The fixes' evidence reads the facts table's idle gaps and the host's calls: a sync during which
// the GPU ran dry owns the gap it began; one that returned with work still queued does not.
TEST(AnalyzeRank, HostSyncEvidenceReadsTheFactsTablesGapsAndSyncs) {
  Builder t;
  t.Kernel("aten::add", kAddDims, kAddTypes, "vectorized_elementwise_kernel", 0, 100'000);
  t.Kernel("aten::add", kAddDims, kAddTypes, "vectorized_elementwise_kernel", 300'000, 400'000);
  t.Kernel("aten::add", kAddDims, kAddTypes, "vectorized_elementwise_kernel", 410'000, 500'000);
  t.b.AddApi({.start_ns = 50'000, .end_ns = 120'000, .pid = 1, .tid = 1, .name = "cudaStreamSynchronize"});
  t.b.AddApi({.start_ns = 320'000, .end_ns = 390'000, .pid = 1, .tid = 1, .name = "cudaDeviceSynchronize"});
  model::Trace trace = std::move(t.b).Finish();
  FactsCopy copy;
  auto v = AnalyzeKeepingFacts(trace, copy);
  ASSERT_TRUE(v) << v.error().message;
  using Intervals = std::vector<std::pair<TimeNs, TimeNs>>;
  EXPECT_EQ(copy.facts.idle_gaps, (Intervals{{100'000, 300'000}, {400'000, 410'000}}));
  EXPECT_EQ(copy.facts.host_syncs, (Intervals{{50'000, 120'000}, {320'000, 390'000}}));
  // The 100..300 µs gap began in the stream sync (returns at 120): the sync's up to the launch
  // cadence after its return (100..170); the host's 130 µs after that are not the sync's, and they
  // hold most of the gap.
  EXPECT_EQ(v->evidence.host_idle[HostCause::kSync].gaps, 0);
  EXPECT_NEAR(v->evidence.host_idle[HostCause::kSync].idle_s, 70e-6, 1e-15);
  EXPECT_NEAR(v->evidence.host_idle[HostCause::kLaunch].idle_s, 10e-6, 1e-15);  // under 50 µs: a launch gap
  EXPECT_NEAR(v->run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)], 210e-6, 1e-15);
}

TEST(AnalyzeRank, OverlappedCommunicationIsNotExposedAndStepsSliceByLaunch) {
  Builder t;
  for (int s = 0; s < 3; ++s) {
    TimeNs base = s * 1'000'000;
    t.Step(s, base);
    t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm", base + 0, base + 400'000);
    // all-reduce half under the GEMM, half exposed
    t.Kernel("", "", "", "ncclDevKernel_AllReduce_Sum_bf16", base + 200'000, base + 600'000, GpuKind::kKernel,
             9);
  }
  model::Trace trace = std::move(t.b).Finish();
  AnalyzeOptions o = Options();
  o.steps = StepSlice{std::nullopt, -1};  // ':-1' drops the last step
  auto v = AnalyzeRank(trace, o);
  ASSERT_TRUE(v) << v.error().message;
  ASSERT_EQ(v->steps.size(), 2u);
  EXPECT_EQ(v->steps[0].number, 0);
  // Window: 0 .. 1.6 ms (two steps). Exposed: 2 x 200 us. Step 0's window ends where step 1 begins.
  EXPECT_NEAR(v->run.wall_s, 1.6e-3, 1e-15);
  EXPECT_NEAR(v->run.loss(Loss::kExposedCommunication), 400e-6 / 1.6e-3, 1e-12);
  EXPECT_NEAR(v->steps[0].figures.wall_s, 1e-3, 1e-15);
  EXPECT_NEAR(v->steps[0].figures.loss(Loss::kHostBoundIdle), 0.4, 1e-12);
  EXPECT_NEAR(v->communication_overlapped_s, 400e-6, 1e-15);
  EXPECT_EQ(v->quality.Get(model::Dq::kStepsFilteredOut), 2);
}

// Each op (name and Input Dims) keeps its compute-kernel time per step; a kernel under no op is
// keyed by its own name; communication is not an op's time.
TEST(AnalyzeRank, OpTimesArePerOpShapeAndStep) {
  constexpr std::string_view kOtherDims = "[[512,1024],[1024,1024]]";
  Builder t;
  for (int s = 0; s < 2; ++s) {
    TimeNs base = s * 1'000'000;
    t.Step(s, base);
    t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm", base + 0, base + 300'000);
    t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm", base + 300'000, base + 400'000);
    t.Kernel("aten::mm", kOtherDims, kMmTypes, "sm90_xmma_gemm", base + 400'000, base + 450'000);
    t.Kernel("", "", "", "my_kernel", base + 450'000, base + 470'000 + s * 10'000);
    t.Kernel("", "", "", "ncclDevKernel_AllReduce_Sum_bf16", base + 500'000, base + 600'000);
  }
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, Options());
  ASSERT_TRUE(v) << v.error().message;
  auto expect_steps = [](const OpStepTimes& o, std::vector<std::pair<std::int64_t, double>> want) {
    ASSERT_EQ(o.step_s.size(), want.size()) << o.op << " " << o.kernel;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(o.step_s[i].first, want[i].first);
      EXPECT_NEAR(o.step_s[i].second, want[i].second, 1e-15);
    }
  };
  ASSERT_EQ(v->op_times.size(), 3u);  // heaviest first
  EXPECT_EQ(v->op_times[0].op, "aten::mm");
  EXPECT_EQ(v->op_times[0].shapes, kMmDims);
  EXPECT_EQ(v->op_times[0].kernel, "sm90_xmma_gemm");
  expect_steps(v->op_times[0], {{0, 400e-6}, {1, 400e-6}});
  EXPECT_EQ(v->op_times[1].shapes, kOtherDims);
  EXPECT_EQ(v->op_times[2].op, "");
  EXPECT_EQ(v->op_times[2].kernel, "my_kernel");
  expect_steps(v->op_times[2], {{0, 20e-6}, {1, 30e-6}});
  EXPECT_NEAR(v->op_times[2].total_s(), 50e-6, 1e-15);
}

TEST(AnalyzeRank, StepsOutOfRangeListTheStepsThatExist) {
  Builder t;
  for (int s = 0; s < 3; ++s) {
    TimeNs base = s * 1'000'000;
    t.Step(s + 40, base);
    t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm", base, base + 400'000);
  }
  model::Trace trace = std::move(t.b).Finish();
  AnalyzeOptions o = Options();
  o.steps = StepSlice{5, std::nullopt};
  auto v = AnalyzeRank(trace, o);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->no_gpu_reason,
            "no GPU activity is left after --steps: the trace has 3 ProfilerSteps (#40 to #42), --steps "
            "indices 0 to 2 (or -3 to -1)");
}

TEST(AnalyzeRank, NoGpuActivityIsSaidPlainly) {
  TraceBuilder b;
  b.AddCpuOp({.start_ns = 0, .end_ns = 10, .name = "aten::add"});
  model::Trace trace = std::move(b).Finish();
  auto v = AnalyzeRank(trace, Options());
  ASSERT_TRUE(v);
  EXPECT_NE(v->no_gpu_reason.find("no GPU activity"), std::string::npos);
}

// The rank's device tier: the SM, tensor and DRAM samples inside its window W (first GPU activity
// to last end), every device together; the whole trace's when it has no GPU activity.
TEST(AnalyzeRank, DeviceTierOverTheWindowOrTheWholeTrace) {
  Builder t;
  t.Kernel("", "", "", "sm90_xmma_gemm", 1'000, 2'000);
  auto sample = [&](TimeNs ts, std::int32_t device, std::string_view metric, double pct) {
    t.b.AddSample({ts, device, metric, pct});
  };
  sample(500, 0, model::kTensorActiveMetric, 90);  // before W
  sample(1'000, 0, model::kTensorActiveMetric, 20);
  sample(1'500, 1, model::kTensorActiveMetric, 40);  // another device of the process
  sample(1'500, 0, model::kSmActiveMetric, 70);
  sample(1'500, 0, "nvml.sm_clock_mhz", 1980);       // not an activity
  sample(2'000, 0, model::kTensorActiveMetric, 90);  // W's end: after it
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, Options());
  ASSERT_TRUE(v);
  EXPECT_DOUBLE_EQ(v->device_tier.Mean(DeviceMetric::kTensorActive), 0.3);
  EXPECT_DOUBLE_EQ(v->device_tier.Mean(DeviceMetric::kSmActive), 0.7);
  EXPECT_EQ(v->device_tier.Mean(DeviceMetric::kDramActive), -1);
  // The clock rides along for the counter model: 30% tensor active at 1980 MHz.
  EXPECT_DOUBLE_EQ(v->device_tier.MeanRaw(DeviceMetric::kSmClockMhz), 1980);
  ASSERT_TRUE(v->counter_estimate);
  EXPECT_TRUE(v->counter_estimate->clock_known);
  EXPECT_NEAR(
      v->counter_estimate->achieved,
      0.3 * 1.98 /
          roofline::PeakClockGhz(*roofline::FindDeviceByKey(v->device.key)->spec, v->counter_estimate->peak),
      1e-9);

  TraceBuilder samples_only;
  samples_only.AddSample({100, 0, model::kTensorActiveMetric, 10});
  samples_only.AddSample({900, 0, model::kTensorActiveMetric, 30});
  model::Trace between = std::move(samples_only).Finish();
  auto b = AnalyzeRank(between, Options());
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->no_gpu_reason.empty());
  EXPECT_DOUBLE_EQ(b->device_tier.Mean(DeviceMetric::kTensorActive), 0.2);
  ASSERT_TRUE(b->counter_estimate);  // between windows: the estimate serve calibrates
  EXPECT_FALSE(b->counter_estimate->clock_known);
}

AnalyzeOptions TraceDeviceOptions() {  // the device as the trace says, or assumed
  AnalyzeOptions o;
  return o;
}

TEST(AnalyzeRank, EmptyNamedRocmDeviceIsMatchedOnItsFieldsNotAssumed) {
  Builder t;
  t.Kernel("aten::mm", kMmDims, kMmTypes, "Cijk_Ailk_Bljk_BBS_BH", 0, 100'000);
  t.b.AddDevice({.id = 0,
                 .name = "",
                 .sm_count = 304,
                 .cc_major = 9,
                 .cc_minor = 4,
                 .total_memory_bytes = 206141652992,
                 .warp_size = 64});
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, TraceDeviceOptions());
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->device.key, "mi300x") << v->device.source;
  EXPECT_FALSE(v->device.assumed);
  EXPECT_EQ(v->device.peak_dtype, "bf16");
}

TEST(AnalyzeRank, DeviceWithoutPropertiesIsAssumedFromKernelNamesAndSaysWhy) {
  Builder t;
  t.Kernel("aten::mm", kMmDims, "[\"float\",\"float\"]", "volta_sgemm_128x64_nn", 0, 100'000);
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, TraceDeviceOptions());
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v->device.assumed);
  EXPECT_EQ(v->device.key, "v100_sxm2");
  EXPECT_NE(v->device.source.find("no deviceProperties"), std::string::npos) << v->device.source;
  Builder plain;
  plain.Kernel("aten::add", kAddDims, kAddTypes, "vectorized_elementwise_kernel", 0, 100'000);
  model::Trace no_hint = std::move(plain.b).Finish();
  auto h = AnalyzeRank(no_hint, TraceDeviceOptions());
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->device.assumed);
  EXPECT_EQ(h->device.key, "h100_sxm");
  EXPECT_TRUE(h->device.unknown);
  EXPECT_FALSE(v->device.unknown);  // the kernels' architecture places it in a family
}

// No shapes recorded, so no FLOP model: the peak's dtype is the one the GEMM kernels' names carry
// (by time), not the device's headline tensor pipe; no heavy kernel naming one keeps the headline.
TEST(AnalyzeRank, WithoutFlopModelsThePeakDtypeIsTheGemmKernelsNames) {
  auto peak_dtype = [](std::initializer_list<std::pair<const char*, TimeNs>> kernels) {
    Builder t;
    TimeNs at = 0;
    for (const auto& [name, ns] : kernels) {
      t.Kernel("aten::mm", "[]", "[]", name, at, at + ns);
      at += ns + 1'000;
    }
    t.b.AddDevice({.id = 0, .name = "NVIDIA A100-SXM4-80GB", .sm_count = 108, .cc_major = 8, .cc_minor = 0});
    model::Trace trace = std::move(t.b).Finish();
    auto v = AnalyzeRank(trace, TraceDeviceOptions());
    return v ? v->device.peak_dtype : std::string("error: ") + v.error().message;
  };
  EXPECT_EQ(peak_dtype({{"ampere_sgemm_128x64_tn", 100'000}}), "fp32");
  EXPECT_EQ(
      peak_dtype({{"ampere_sgemm_128x64_tn", 10'000}, {"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn", 90'000}}),
      "bf16");
  EXPECT_EQ(peak_dtype({{"vectorized_elementwise_kernel", 100'000}}), "bf16");  // the headline pipe
}

// A device record the table does not know (a GeForce card running volta_ kernels) says the chip
// is another one: the kernels' architecture, a lower bound, does not stand in. The device is
// unknown, and the verdict says so (Judge: unknown_device).
TEST(AnalyzeRank, AnUnmatchedDeviceRecordIsUnknownNotTheKernelsFamily) {
  Builder t;
  t.Kernel("aten::mm", kMmDims, "[\"float\",\"float\"]", "volta_sgemm_128x64_nn", 0, 100'000);
  t.b.AddDevice({.id = 0,
                 .name = "NVIDIA GeForce RTX 2080 Ti",
                 .sm_count = 68,
                 .cc_major = 7,
                 .cc_minor = 5,
                 .total_memory_bytes = 11'554'717'696,
                 .warp_size = 32});
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, TraceDeviceOptions());
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v->device.assumed);
  EXPECT_TRUE(v->device.unknown);
  EXPECT_NE(v->device.key, "v100_sxm2") << v->device.source;
  EXPECT_NE(v->device.source.find("RTX 2080 Ti"), std::string::npos) << v->device.source;
}

TEST(AnalyzeRank, KernelWithoutLaunchTakesTheCostOfItsNamesakeWithTheNearestDuration) {
  Builder t;
  t.Kernel("aten::mm", kMmDims, kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 50'000);
  t.Kernel("aten::mm", "[[2048,1024],[1024,1024]]", kMmTypes, "sm90_xmma_gemm_bf16bf16_bf16f32", 60'000,
           160'000);
  // The same kernel with no launch record (lost by the tracer), 48 us long: the first mm's twin.
  t.b.AddGpu(
      {.start_ns = 170'000, .end_ns = 218'000, .stream = 7, .name = "sm90_xmma_gemm_bf16bf16_bf16f32"});
  t.b.AddGpu({.start_ns = 220'000, .end_ns = 230'000, .stream = 7, .name = "unknown_orphan_kernel"});
  model::Trace trace = std::move(t.b).Finish();
  auto v = AnalyzeRank(trace, Options());
  ASSERT_TRUE(v);
  const double mm = roofline::EstimateOp("aten::mm", kMmDims, kMmTypes, "").flops;
  const double big = roofline::EstimateOp("aten::mm", "[[2048,1024],[1024,1024]]", kMmTypes, "").flops;
  EXPECT_NEAR(v->hardware_flops, 2 * mm + big, 1);
  EXPECT_NEAR(v->modeled_compute_s, 198e-6, 1e-12);  // all but the unknown orphan
}

TEST(AnalyzeRank, ParentOpKernelsGetOnlyWhatItsPricedChildrenDidNotCount) {
  // cudnn_convolution_backward (2 × forward) launches the weight-gradient kernel itself and the
  // data-gradient kernel through cudnn_convolution_backward_input (1 × forward).
  TraceBuilder b;
  const std::string_view bwd_dims = "[[8,64,56,56],[8,64,56,56],[64,64,3,3]]";
  const std::string_view in_dims = "[[],[8,64,56,56],[64,64,3,3]]";
  const std::string_view types = "[\"float\",\"float\",\"float\"]";
  const std::string_view in_types = "[\"GenericList\",\"float\",\"float\"]";
  b.AddCpuOp({.start_ns = 0,
              .end_ns = 100,
              .pid = 1,
              .tid = 1,
              .name = "aten::cudnn_convolution_backward",
              .input_dims = bwd_dims,
              .input_types = types});
  b.AddCpuOp({.start_ns = 10,
              .end_ns = 40,
              .pid = 1,
              .tid = 1,
              .name = "aten::cudnn_convolution_backward_input",
              .input_dims = in_dims,
              .input_types = in_types,
              .concrete_inputs = "[\"[8, 64, 56, 56]\",\"\",\"\"]"});
  b.AddApi({.start_ns = 20, .end_ns = 21, .pid = 1, .tid = 1, .name = "cudaLaunchKernel", .correlation = 1});
  b.AddApi({.start_ns = 60, .end_ns = 61, .pid = 1, .tid = 1, .name = "cudaLaunchKernel", .correlation = 2});
  b.AddGpu({.start_ns = 1000, .end_ns = 2000, .stream = 7, .name = "dgrad_engine", .correlation = 1});
  b.AddGpu({.start_ns = 2000, .end_ns = 3000, .stream = 7, .name = "wgrad_alg0_engine", .correlation = 2});
  model::Trace trace = std::move(b).Finish();
  auto v = AnalyzeRank(trace, Options());
  ASSERT_TRUE(v);
  const double whole = roofline::EstimateOp("aten::cudnn_convolution_backward", bwd_dims, types, "").flops;
  ASSERT_GT(whole, 0);
  EXPECT_NEAR(v->hardware_flops, whole, whole * 1e-9);  // not 1.5 × whole
}

}  // namespace
}  // namespace plasmient::verdict
