#include "verdict/host_causes.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"
#include "verdict/analyze.h"
#include "verdict/testing/test_options.h"

namespace plasmient::verdict {
namespace {

using model::CpuOpKind;
using model::TraceBuilder;

constexpr TimeNs kUs = 1000;

struct Host {
  TraceBuilder b;
  std::int64_t corr = 1;
  // A kernel on stream 7 over [start, end) µs, launched by thread `tid` over [launch, launch + 3) µs.
  void Kernel(TimeNs start, TimeNs end, TimeNs launch, std::int64_t tid = 1) {
    b.AddApi({.start_ns = launch * kUs,
              .end_ns = (launch + 3) * kUs,
              .pid = 1,
              .tid = tid,
              .name = "cudaLaunchKernel",
              .correlation = corr});
    b.AddGpu({.start_ns = start * kUs,
              .end_ns = end * kUs,
              .stream = 7,
              .name = "my_kernel",
              .kind = model::GpuKind::kKernel,
              .correlation = corr++});
  }
  void Api(std::string_view name, TimeNs start, TimeNs end, std::int64_t tid = 1) {
    b.AddApi({.start_ns = start * kUs, .end_ns = end * kUs, .pid = 1, .tid = tid, .name = name});
  }
  void Range(std::string_view name, TimeNs start, TimeNs end, CpuOpKind kind = CpuOpKind::kOp,
             std::int64_t tid = 1) {
    b.AddCpuOp(
        {.start_ns = start * kUs, .end_ns = end * kUs, .pid = 1, .tid = tid, .name = name, .kind = kind});
  }
};

double Us(double s) { return s * 1e6; }

// Every idle gap split by what the launching thread's host ranges say, the innermost range that
// names a cause winning, each slice counted once: the figures are the slices' lengths.
TEST(HostCauses, EachGapSliceGoesToTheInnermostRangeThatNamesACause) {
  Host h;
  h.Kernel(0, 100, 0);
  // 100..1100: the allocator, then host work in an op that launches the next kernel.
  h.Range("aten::empty", 85, 705);
  h.Api("cudaFree", 90, 700);
  h.Range("aten::add", 700, 1100);
  h.Kernel(1100, 1200, 1095);
  // 1200..1230: a short gap in an op's launch: the launch cadence.
  h.Range("aten::mul", 1220, 1229);
  h.Kernel(1230, 1300, 1225);
  // 1300..3300: the data loader (an op inside it does not take its time).
  h.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1300, 3290, CpuOpKind::kAnnotation);
  h.Range("aten::stack", 1400, 1500);
  h.Kernel(3300, 3400, 3292);
  // 3400..3500: nothing on the launching thread; a barrier on another thread that launches.
  h.Range("gloo:barrier", 3400, 3450, CpuOpKind::kOp, 2);
  h.Kernel(3500, 3600, 3497);
  h.Kernel(1110, 1120, 1050, 2);  // thread 2 launches too (a kernel inside the busy time)
  // 3600..3705: the gap began while the host blocked in a sync (it returns at 3601): the sync's as
  // far as the launch cadence after its return (3601..3651), then the host's, unknown here.
  h.Api("cudaStreamSynchronize", 3510, 3601);
  h.Kernel(3705, 3800, 3700);
  model::Trace t = std::move(h.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const HostIdleCauses& c = v->evidence.host_idle;
  EXPECT_NEAR(Us(c[HostCause::kAllocator].idle_s), 600, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kHostWork].idle_s), 395 + 2, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kDataLoading].idle_s), 1990, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kHostCollective].idle_s), 50, 1e-6);
  EXPECT_TRUE(c[HostCause::kHostCollective].other_thread);
  EXPECT_NEAR(Us(c[HostCause::kSync].idle_s), 1 + 50, 1e-6);  // 3600..3601, 3601..3651
  // Launch calls: 1095..1098, the whole short gap, 3292..3295, 3497..3500, 3700..3703.
  EXPECT_NEAR(Us(c[HostCause::kLaunch].idle_s), 3 + 30 + 3 + 3 + 3, 1e-6);
  // Unknown: 3290..3292, 3295..3300, 3450..3497, and after the sync's drain 3651..3700, 3703..3705.
  EXPECT_NEAR(Us(c[HostCause::kUnknown].idle_s), 2 + 5 + 47 + 49 + 2, 1e-6);
  EXPECT_NEAR(c.total_s(), v->run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)], 1e-12);
  ASSERT_FALSE(c[HostCause::kAllocator].names.empty());
  EXPECT_EQ(c[HostCause::kAllocator].names.front().name, "cudaFree");
  EXPECT_EQ(c[HostCause::kAllocator].calls, 1);
  EXPECT_NEAR(Us(c[HostCause::kAllocator].call_s), 610, 1e-6);
  EXPECT_EQ(c[HostCause::kDataLoading].gaps, 1);
  // The slices `explain` reads: each instant's cause is the one its idle was charged to, and the
  // slices add up to the host-bound idle.
  EXPECT_EQ(c.CauseAt(400 * kUs), HostCause::kAllocator);
  EXPECT_EQ(c.CauseAt(900 * kUs), HostCause::kHostWork);
  EXPECT_EQ(c.CauseAt(1215 * kUs), HostCause::kLaunch);
  EXPECT_EQ(c.CauseAt(2000 * kUs), HostCause::kDataLoading);
  EXPECT_EQ(c.CauseAt(3420 * kUs), HostCause::kHostCollective);
  EXPECT_EQ(c.CauseAt(3650 * kUs), HostCause::kSync);
  EXPECT_FALSE(c.CauseAt(50 * kUs));  // a kernel is resident
  TimeNs sliced = 0;
  for (const HostIdleSlice& sl : c.slices) sliced += sl.end_ns - sl.start_ns;
  EXPECT_NEAR(static_cast<double>(sliced) * 1e-9, c.total_s(), 1e-12);
  // The data loader's longest slice is its whole gap: where the first fix's instant lands for it.
  EXPECT_EQ(c[HostCause::kDataLoading].longest_start_ns, 1300 * kUs);
  EXPECT_EQ(c[HostCause::kDataLoading].longest_end_ns, 3290 * kUs);
}

TEST(HostCauses, NamesAreClassifiedByWhatTheCallDoes) {
  EXPECT_EQ(CauseOfHostRange("hipFree", true), HostCause::kAllocator);
  EXPECT_EQ(CauseOfHostRange("cudaMallocAsync", true), HostCause::kAllocator);
  EXPECT_EQ(CauseOfHostRange("hipMemcpyWithStream", true), HostCause::kBlockingCopy);
  EXPECT_EQ(CauseOfHostRange("cudaMemcpy", true), HostCause::kBlockingCopy);
  EXPECT_EQ(CauseOfHostRange("cudaMemcpyAsync", true), std::nullopt);  // unless its copy is pageable
  EXPECT_EQ(CauseOfHostRange("cudaStreamSynchronize", true), HostCause::kSync);
  EXPECT_EQ(CauseOfHostRange("cuLibraryLoadData", true), HostCause::kCompile);
  EXPECT_EQ(CauseOfHostRange("nvrtcCompileProgram", true), HostCause::kCompile);
  EXPECT_EQ(CauseOfHostRange("cudaStreamBeginCapture", true), HostCause::kGraphCapture);
  EXPECT_EQ(CauseOfHostRange("cudaGraphInstantiateWithFlags", true), HostCause::kGraphCapture);
  EXPECT_EQ(CauseOfHostRange("cudaGraphLaunch", true), HostCause::kLaunch);
  EXPECT_EQ(CauseOfHostRange("compileFusion", false), HostCause::kCompile);
  EXPECT_EQ(CauseOfHostRange("cudnnFindConvolutionForwardAlgorithmEx", false), HostCause::kCompile);
  EXPECT_EQ(CauseOfHostRange("Torch-Compiled Region: 0/0", false), std::nullopt);
  EXPECT_EQ(CauseOfHostRange("CompiledFunctionBackward", false), std::nullopt);
  EXPECT_EQ(CauseOfHostRange("aten::_local_scalar_dense", false), HostCause::kSync);
  EXPECT_EQ(CauseOfHostRange("aten::mm", false), std::nullopt);
  EXPECT_EQ(CauseOfStack({{"aten::mm", false, false}, {"ProfilerStep#3", false, true}}),
            HostCause::kHostWork);
  EXPECT_EQ(CauseOfStack({{"ProfilerStep#3", false, true}}), HostCause::kUnknown);
  EXPECT_EQ(CauseOfStack({{"aten::stack", false, false},
                          {"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", false, false}}),
            HostCause::kDataLoading);
}

// A pageable copy's asynchronous call blocks: the copy's own record says it is pageable.
TEST(HostCauses, AnAsyncCallWhoseCopyIsPageableBlocks) {
  Host h;
  h.Kernel(0, 100, 0);
  h.b.AddApi({.start_ns = 100 * kUs,
              .end_ns = 900 * kUs,
              .pid = 1,
              .tid = 1,
              .name = "cudaMemcpyAsync",
              .correlation = 99});
  h.b.AddGpu({.start_ns = 880 * kUs,
              .end_ns = 900 * kUs,
              .stream = 7,
              .name = "Memcpy HtoD (Pageable -> Device)",
              .kind = model::GpuKind::kMemcpy,
              .correlation = 99,
              .bytes = 1 << 20});
  h.Kernel(1000, 1100, 990);
  model::Trace t = std::move(h.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const HostIdleCauses& c = v->evidence.host_idle;
  EXPECT_NEAR(Us(c[HostCause::kBlockingCopy].idle_s), 780, 1e-6);  // 100..880, the copy not yet resident
  EXPECT_EQ(c[HostCause::kBlockingCopy].names.front().name, "Memcpy HtoD (Pageable -> Device)");
}

// A blocking copy to the host waits for the device's values: a sync, named by its copy.
TEST(HostCauses, ABlockingCopyToTheHostIsASync) {
  Host h;
  h.Kernel(0, 870, 0);  // the GPU runs while the host waits for it
  h.b.AddApi({.start_ns = 50 * kUs,
              .end_ns = 900 * kUs,
              .pid = 1,
              .tid = 1,
              .name = "hipMemcpyWithStream",
              .correlation = 99});
  h.b.AddGpu({.start_ns = 880 * kUs,
              .end_ns = 890 * kUs,
              .stream = 7,
              .name = "Memcpy DtoH (Device -> Host)",
              .kind = model::GpuKind::kMemcpy,
              .correlation = 99,
              .bytes = 4});
  h.Kernel(1000, 1100, 990);
  model::Trace t = std::move(h.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const HostIdleCauses& c = v->evidence.host_idle;
  EXPECT_NEAR(Us(c[HostCause::kBlockingCopy].idle_s), 0, 1e-6);
  // 870..880 and 890..900 in the call; the gap after it began in the sync: the sync's until the
  // launch cadence after its return (900..950), then unknown (950..990, 993..1000).
  EXPECT_NEAR(Us(c[HostCause::kSync].idle_s), 10 + 10 + 50, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kUnknown].idle_s), 40 + 7, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kUnseenWait].idle_s), 0, 1e-6);
  EXPECT_EQ(c[HostCause::kSync].names.front().name, "Memcpy DtoH (Device -> Host)");
}

// A sync that keeps blocking while nothing recorded is resident waits on work the trace does not
// show: past the driver's return time the idle is an unseen wait, not a drain.
TEST(HostCauses, ASyncBlockingWhileNothingRecordedRunsIsAnUnseenWait) {
  Host h;
  h.Kernel(0, 100, 0);
  h.Api("cudaStreamSynchronize", 50, 900);
  h.Kernel(1000, 1100, 990);
  model::Trace t = std::move(h.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const HostIdleCauses& c = v->evidence.host_idle;
  EXPECT_NEAR(Us(c[HostCause::kUnseenWait].idle_s), 700, 1e-6);  // 200..900
  // 100..200 in the call, then the launch cadence after it returned: 900..950; the host's own time
  // after that is not the sync's (950..990, 993..1000: unknown).
  EXPECT_NEAR(Us(c[HostCause::kSync].idle_s), 100 + 50, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kUnknown].idle_s), 40 + 7, 1e-6);
  EXPECT_EQ(c[HostCause::kUnseenWait].names.front().name, "cudaStreamSynchronize");
}

// A launch call that lasts ≥ 100 µs while the GPU idles is the driver loading or compiling the
// kernel's module; host time inside a short op that launches is the launch's overhead, inside a
// long one the op's own work.
TEST(HostCauses, SlowLaunchesLoadModulesAndShortLaunchingOpsAreLaunchOverhead) {
  Host h;
  h.Kernel(0, 100, 0);
  h.b.AddApi({.start_ns = 200 * kUs,
              .end_ns = 500 * kUs,
              .pid = 1,
              .tid = 1,
              .name = "hipLaunchKernel",
              .correlation = 50});
  h.b.AddGpu({.start_ns = 510 * kUs, .end_ns = 600 * kUs, .stream = 7, .name = "k", .correlation = 50});
  h.Range("aten::relu", 640, 700);  // 60 µs, launches: overhead
  h.Kernel(700, 800, 690);
  h.Range("aten::index", 800, 1200);  // 400 µs, launches: work of its own
  h.Kernel(1200, 1300, 1190);
  model::Trace t = std::move(h.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const HostIdleCauses& c = v->evidence.host_idle;
  EXPECT_NEAR(Us(c[HostCause::kCompile].idle_s), 300, 1e-6);  // 200..500
  EXPECT_NEAR(Us(c[HostCause::kLaunch].idle_s), 50 + 3 + 7 + 3,
              1e-6);                                               // 640..700 (relu, its launch), 1190..1193
  EXPECT_NEAR(Us(c[HostCause::kHostWork].idle_s), 390 + 7, 1e-6);  // 800..1190, 1193..1200
}

// The profiler's own work (Kineto's "overhead" events, on no thread of the program's): where it
// spans GPU idle that no range of the launching thread names a cause of (host work, a launch call
// or nothing), the idle is the profiler's; a named cause on the launching thread keeps its time,
// and CUPTI's driver-compiler overhead is the program's JIT compilation.
TEST(HostCauses, TheProfilersOwnWorkTakesTheIdleNoRangeNames) {
  Host h;
  h.Kernel(0, 100, 0);
  // 100..600: a buffer flush over 150..450 while the host runs an op that launches nothing.
  h.Range("aten::add", 100, 595);
  h.b.AddOverhead({.start_ns = 150 * kUs, .end_ns = 450 * kUs, .name = "Buffer Flush"});
  h.Kernel(600, 700, 595);
  // 700..1000: the allocator on the launching thread, an instrumentation record over all of it.
  h.Api("cudaFree", 700, 995);
  h.b.AddOverhead({.start_ns = 690 * kUs, .end_ns = 1000 * kUs, .name = "Instrumentation"});
  h.Kernel(1000, 1100, 995);
  // 1100..1300: nothing on the host but the driver compiling a kernel, as CUPTI reports it.
  h.b.AddOverhead({.start_ns = 1100 * kUs, .end_ns = 1290 * kUs, .name = "Driver Compiler"});
  h.Kernel(1300, 1400, 1295);
  model::Trace t = std::move(h.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const HostIdleCauses& c = v->evidence.host_idle;
  // 150..450, and 995..1000 (the launch call after cudaFree, and after it nothing named).
  EXPECT_NEAR(Us(c[HostCause::kProfilerOverhead].idle_s), 300 + 5, 1e-6);
  EXPECT_NEAR(Us(c[HostCause::kHostWork].idle_s), 50 + 145, 1e-6);  // 100..150, 450..595
  EXPECT_NEAR(Us(c[HostCause::kAllocator].idle_s), 295, 1e-6);      // the named cause wins
  EXPECT_NEAR(Us(c[HostCause::kCompile].idle_s), 190, 1e-6);        // 1100..1290
  ASSERT_FALSE(c[HostCause::kProfilerOverhead].names.empty());
  EXPECT_EQ(c[HostCause::kProfilerOverhead].names.front().name, "Buffer Flush");
  EXPECT_EQ(c[HostCause::kCompile].names.front().name, "Driver Compiler");
  EXPECT_EQ(c.CauseAt(300 * kUs), HostCause::kProfilerOverhead);
  // Its records in the window are its calls: both of them (the compile one is not).
  EXPECT_EQ(c[HostCause::kProfilerOverhead].calls, 2);
  EXPECT_NEAR(c.total_s(), v->run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)], 1e-12);
  EXPECT_EQ(HostCauseName(HostCause::kProfilerOverhead), "profiler_overhead");
}

}  // namespace
}  // namespace plasmient::verdict
