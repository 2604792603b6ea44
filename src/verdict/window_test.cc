#include "verdict/window.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"
#include "verdict/analyze.h"

namespace plasmient::verdict {
namespace {

using model::Dq;
using model::TraceBuilder;

constexpr TimeNs kMs = kNsPerMs;

// `n` back-to-back 1 ms kernels from 1 s on, each launched 10 µs before it starts.
struct Timeline {
  TraceBuilder b;
  std::int64_t corr = 100;
  void Kernel(TimeNs start, TimeNs end, bool launched = true) {
    if (launched) {
      b.AddApi({.start_ns = start - 10'000,
                .end_ns = start - 9'000,
                .name = "cudaLaunchKernel",
                .correlation = corr});
    }
    b.AddGpu({.start_ns = start, .end_ns = end, .name = "k", .correlation = corr++});
  }
  void Bulk(int n) {
    for (int i = 0; i < n; ++i) Kernel(kNsPerS + i * kMs, kNsPerS + (i + 1) * kMs);
  }
};

std::vector<char> Kept(model::Trace& t) {
  std::vector<char> kept(t.gpu.size(), 1);
  ExcludeStrayActivities(t, kept, t.quality);  // the test reads the counters off the trace
  return kept;
}

TEST(StrayActivities, OneEventAYearLaterIsLeftOutAndReported) {
  Timeline tl;
  tl.Bulk(100);
  const TimeNs year = 365LL * 24 * 3600 * kNsPerS;
  tl.Kernel(year, year + 2 * kMs);
  model::Trace t = std::move(tl.b).Finish();
  auto kept = Kept(t);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 100);
  EXPECT_EQ(kept.back(), 0);
  EXPECT_EQ(t.quality.Get(Dq::kStrayActivity), 1);
  EXPECT_DOUBLE_EQ(t.quality.GpuSeconds(Dq::kStrayActivity), 2e-3);
}

TEST(StrayActivities, StraysOnBothSidesGoBulkAndRealIdleTimeStay) {
  Timeline tl;
  tl.Kernel(kMs, 2 * kMs);  // 1 s before a 100 ms bulk: 10x its span, a real pause
  tl.Bulk(100);
  tl.Kernel(1000 * kNsPerS, 1000 * kNsPerS + kMs);           // 1000 s after: a stray
  tl.Kernel(-1000 * kNsPerS, -1000 * kNsPerS + kMs, false);  // 1000 s before: a stray
  model::Trace t = std::move(tl.b).Finish();
  auto kept = Kept(t);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 101);
  EXPECT_EQ(kept[0], 1);
  EXPECT_EQ(kept[101], 0);
  EXPECT_EQ(kept[102], 0);
  EXPECT_EQ(t.quality.Get(Dq::kStrayActivity), 2);
}

TEST(StrayActivities, NeverMoreThanFivePercentAndNeverAShortGap) {
  Timeline tl;
  tl.Bulk(100);
  for (int i = 0; i < 10; ++i) tl.Kernel(1000 * kNsPerS + i * kMs, 1000 * kNsPerS + (i + 1) * kMs);
  model::Trace far = std::move(tl.b).Finish();
  auto kept = Kept(far);  // ten of 110 is more than 5%: a second bulk, not strays
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 110);
  Timeline small;
  small.Kernel(0, 10'000);
  small.Kernel(500 * kMs, 500 * kMs + 10'000);  // 50,000x the span, but under a second
  model::Trace near = std::move(small.b).Finish();
  kept = Kept(near);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 2);
  EXPECT_EQ(near.quality.Get(Dq::kStrayActivity), 0);
}

// Issue 36: two kernels a year after a 32-activity trace (or a 30-kernel agent window) billed
// 8,760 GPU-hours: the rule allowed one stray per hundred activities.
TEST(StrayActivities, TwoKernelsAYearAfterASmallTraceAreStrays) {
  Timeline tl;
  tl.Bulk(32);
  const TimeNs year = 365LL * 24 * 3600 * kNsPerS;
  tl.Kernel(year, year + kMs);
  tl.Kernel(year + 2 * kMs, year + 3 * kMs);
  model::Trace t = std::move(tl.b).Finish();
  auto kept = Kept(t);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 32);
  EXPECT_EQ(t.quality.Get(Dq::kStrayActivity), 2);
  // 10x the span is enough: a 32 ms bulk, then one kernel 1.5 s later.
  Timeline gap;
  gap.Bulk(32);
  gap.Kernel(kNsPerS + 32 * kMs + 1500 * kMs, kNsPerS + 33 * kMs + 1500 * kMs);
  model::Trace g = std::move(gap.b).Finish();
  auto kept_g = Kept(g);
  EXPECT_EQ(std::count(kept_g.begin(), kept_g.end(), 1), 32);
}

// Long windows and long kernels are kept (persistent kernels are real) and counted for the bill.
TEST(StrayActivities, WindowsOverADayAndKernelsOverAnHourAreFlagged) {
  Timeline tl;
  tl.Bulk(10);
  const TimeNs hour = 3600LL * kNsPerS;
  tl.Kernel(kNsPerS + 10 * kMs, kNsPerS + 10 * kMs + 2 * hour);  // one 2-hour kernel, no gap
  tl.Bulk(10);
  model::Trace t = std::move(tl.b).Finish();
  std::vector<char> kept = Kept(t);
  FlagLongWindows(t, kept, t.quality);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 21);
  EXPECT_EQ(t.quality.Get(Dq::kLongKernel), 1);
  EXPECT_EQ(t.quality.Get(Dq::kLongWindow), 0);
  Timeline days;
  days.Bulk(10);
  for (int d = 1; d <= 3; ++d)
    days.Kernel(d * 24 * hour, d * 24 * hour + 20 * hour);  // 20-hour kernels, a day apart
  model::Trace long_run = std::move(days.b).Finish();
  kept = Kept(long_run);
  FlagLongWindows(long_run, kept, long_run.quality);
  EXPECT_EQ(long_run.quality.Get(Dq::kLongWindow), 1);
  EXPECT_EQ(long_run.quality.Get(Dq::kLongKernel), 3);
}

TEST(AnalyzeRank, TheWindowLeavesOutWorkQueuedBeforeProfilingAndStrays) {
  Timeline tl;
  tl.b.AddCpuOp({.start_ns = kNsPerS - 20'000, .end_ns = 2 * kNsPerS, .name = "aten::mm"});
  tl.Kernel(kNsPerS - 50 * kMs, kNsPerS, false);  // correlation 100: below every launch's
  tl.Bulk(100);
  tl.Kernel(5000 * kNsPerS, 5000 * kNsPerS + kMs);
  model::Trace t = std::move(tl.b).Finish();
  AnalyzeOptions o;
  o.gpu = "h100_sxm";
  auto v = AnalyzeRank(t, o);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->run.start_ns, kNsPerS);
  EXPECT_EQ(v->run.end_ns, kNsPerS + 100 * kMs);
  EXPECT_EQ(v->kept_activities, 100);
  EXPECT_EQ(v->quality.Get(Dq::kQueuedBeforeProfiling), 1);
  EXPECT_DOUBLE_EQ(v->quality.GpuSeconds(Dq::kQueuedBeforeProfiling), 50e-3);
  EXPECT_EQ(v->quality.Get(Dq::kStrayActivity), 1);
  EXPECT_EQ(v->quality.Get(Dq::kKernelNoLaunch), 0);
}

}  // namespace
}  // namespace plasmient::verdict
