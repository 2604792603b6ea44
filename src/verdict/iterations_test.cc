#include "verdict/iterations.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"
#include "verdict/analyze.h"
#include "verdict/testing/test_options.h"

namespace plasmient::verdict {
namespace {

using model::CpuOpKind;

constexpr TimeNs kUsNs = 1000;

// A training loop on one thread, times in µs, with no ProfilerStep marks.
struct Loop {
  model::TraceBuilder b;
  std::int64_t corr = 1;
  void Range(std::string_view name, TimeNs start, TimeNs end, CpuOpKind kind = CpuOpKind::kOp) {
    b.AddCpuOp(
        {.start_ns = start * kUsNs, .end_ns = end * kUsNs, .pid = 1, .tid = 1, .name = name, .kind = kind});
  }
  void Api(std::string_view name, TimeNs start, TimeNs end) {
    b.AddApi({.start_ns = start * kUsNs, .end_ns = end * kUsNs, .pid = 1, .tid = 1, .name = name});
  }
  // An op over [launch - 2, launch + 5) launching `kernel` at `launch`, run over [start, end).
  void Op(std::string_view op, std::string_view kernel, TimeNs launch, TimeNs start, TimeNs end) {
    Range(op, launch - 2, launch + 5);
    b.AddApi({.start_ns = launch * kUsNs,
              .end_ns = (launch + 3) * kUsNs,
              .pid = 1,
              .tid = 1,
              .name = "cudaLaunchKernel",
              .correlation = corr});
    b.AddGpu({.start_ns = start * kUsNs,
              .end_ns = end * kUsNs,
              .stream = 7,
              .name = kernel,
              .correlation = corr++});
  }
  // Iteration at host time `at` whose GPU work starts at `gpu`: the data loader, two convolutions
  // and the optimizer's step, each launching one kernel of 100 µs, back to back on the GPU.
  void Iteration(TimeNs at, TimeNs gpu) {
    Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", at, at + 50, CpuOpKind::kAnnotation);
    Op("aten::conv2d", "implicit_gemm", at + 60, gpu, gpu + 100);
    Op("aten::conv2d", "implicit_gemm", at + 70, gpu + 100, gpu + 200);
    Range("Optimizer.step#SGD.step", at + 80, at + 95, CpuOpKind::kAnnotation);
    Op("aten::add_", "sgd_update", at + 85, gpu + 200, gpu + 300);
  }
};

// The data loader's __next__ and the optimizer's step recur once per iteration, launching the
// same three kernels between their starts; the convolution recurs twice, launching one kernel
// and then two: not a marker. Of the two, the one that opens the iteration is read, and each
// iteration is its GPU window (first kernel to the next iteration's first): the first one, whose
// kernels start 2 ms late (the host set up), is the slow one.
TEST(Iterations, TheRangeThatOpensEachIterationMarksItsGpuWindow) {
  Loop l;
  l.Iteration(0, 2000);  // the first kernel waits 2 ms for the host
  for (int i = 1; i < 6; ++i) l.Iteration(2000 + 400 * i, 2000 + 400 * i + 10);
  model::Trace t = std::move(l.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const Iterations& it = v->iterations;
  ASSERT_TRUE(it.found());
  EXPECT_EQ(it.source, "host_range");
  EXPECT_EQ(it.marker, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(it.occurrences, 6);
  EXPECT_EQ(it.activities, 3);
  ASSERT_EQ(it.wall_s.size(), 5u);
  EXPECT_NEAR(it.wall_s[0] * 1e6, 2410 - 2000, 1e-6);  // 2000 → 2410
  for (std::size_t i = 1; i < 5; ++i) EXPECT_NEAR(it.wall_s[i] * 1e6, 400, 1e-6);
}

// A host ahead of the GPU: the first iteration's host time is long (setup the GPU never waited
// for, its kernels queued behind a long one), its GPU window is not: no slow first iteration.
TEST(Iterations, HostTimeTheGpuNeverWaitedForIsNotTheIterations) {
  Loop l;
  for (int i = 0; i < 6; ++i) l.Iteration(i == 0 ? 0 : 3000 + 100 * i, 5000 + 300 * i);
  model::Trace t = std::move(l.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  ASSERT_TRUE(v->iterations.found());
  for (double w : v->iterations.wall_s) EXPECT_NEAR(w * 1e6, 300, 1e-6);
}

// No host range recurs with the same work between its starts (none at all here): a kernel that
// recurs once per iteration marks it, its periods counted by what starts on the GPU.
TEST(Iterations, WithNoHostRangeAKernelMarksTheIterations) {
  model::TraceBuilder b;
  for (int i = 0; i < 5; ++i) {
    const TimeNs at = (i == 0 ? 0 : 1000 + 300 * i) * kUsNs;
    b.AddGpu({.start_ns = at, .end_ns = at + 100 * kUsNs, .stream = 7, .name = "stencil"});
    b.AddGpu({.start_ns = at + 100 * kUsNs, .end_ns = at + 200 * kUsNs, .stream = 7, .name = "reduce"});
  }
  model::Trace t = std::move(b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  const Iterations& it = v->iterations;
  ASSERT_TRUE(it.found());
  EXPECT_EQ(it.source, "gpu_kernel");
  EXPECT_EQ(it.marker, "stencil");  // starts first of the two
  ASSERT_EQ(it.wall_s.size(), 4u);
  EXPECT_NEAR(it.wall_s[0] * 1e6, 1300, 1e-6);
}

// Work that differs from one period to the next is no iteration: nothing is found.
TEST(Iterations, PeriodsOfDifferentWorkAreNoIterations) {
  model::TraceBuilder b;
  TimeNs at = 0;
  for (int i = 0; i < 6; ++i) {
    b.AddGpu({.start_ns = at, .end_ns = at + 10 * kUsNs, .stream = 7, .name = "head"});
    at += 20 * kUsNs;
    for (int k = 0; k < 1 + 3 * (i % 2); ++k) {  // one body kernel, then four
      b.AddGpu({.start_ns = at, .end_ns = at + 10 * kUsNs, .stream = 7, .name = fmt::format("body{}", k)});
      at += 20 * kUsNs;
    }
  }
  model::Trace t = std::move(b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_FALSE(v->iterations.found()) << v->iterations.marker;
}

// Host costs that happen once, early: the allocator's growth (cudaFree inside the first
// iteration's first convolution) holds the GPU idle in the first iteration and never again; the
// data loader stalls every iteration and is no once-early cost, nor is a cost too small to
// lengthen an iteration.
TEST(Iterations, TheAllocatorGrowingInTheFirstIterationIsAOnceEarlyCost) {
  Loop l;
  // The first iteration copies its batch in, then its first convolution waits 1.5 ms for cudaFree.
  l.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 50, CpuOpKind::kAnnotation);
  l.Op("aten::copy_", "copy_kernel", 55, 60, 70);
  l.Range("aten::conv2d", 75, 1700);
  l.Api("cudaFree", 80, 1580);
  l.Op("aten::cudnn_convolution", "implicit_gemm", 1600, 1610, 1710);
  l.Op("aten::conv2d", "implicit_gemm", 1705, 1710, 1810);
  l.Range("Optimizer.step#SGD.step", 1800, 1815, CpuOpKind::kAnnotation);
  l.Op("aten::add_", "sgd_update", 1805, 1810, 1910);
  for (int i = 1; i < 6; ++i) {
    const TimeNs at = 1910 + 600 * (i - 1);
    // Each steady iteration waits 250 µs for the data loader.
    l.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", at, at + 250,
            CpuOpKind::kAnnotation);
    l.Op("aten::copy_", "copy_kernel", at + 252, at + 255, at + 260);
    l.Op("aten::conv2d", "implicit_gemm", at + 256, at + 260, at + 360);
    l.Op("aten::conv2d", "implicit_gemm", at + 300, at + 360, at + 460);
    l.Range("Optimizer.step#SGD.step", at + 400, at + 415, CpuOpKind::kAnnotation);
    l.Op("aten::add_", "sgd_update", at + 405, at + 460, at + 560);
  }
  model::Trace t = std::move(l.b).Finish();
  auto v = AnalyzeRank(t, testing::TestOptions());
  ASSERT_TRUE(v) << v.error().message;
  ASSERT_TRUE(v->iterations.found());
  EXPECT_EQ(v->iterations.marker, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  ASSERT_FALSE(v->once_early.empty());
  EXPECT_EQ(v->once_early.front().name, "cudaFree");
  EXPECT_EQ(v->once_early.front().cause, HostCause::kAllocator);
  for (const OnceEarlyCost& c : v->once_early) EXPECT_NE(c.cause, HostCause::kDataLoading) << c.name;
  EXPECT_GT(v->once_early_s, 0);
}

}  // namespace
}  // namespace plasmient::verdict
