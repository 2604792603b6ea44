#include "join/graph_replay.h"

#include <gtest/gtest.h>

#include "join/join.h"
#include "model/trace_builder.h"

namespace plasmient::join {
namespace {

using model::CpuOpKind;
using model::Dq;
using model::GpuKind;
using model::TraceBuilder;

// A capture on thread 1: a module around aten::mm and aten::add, each launching one kernel, and a
// memset, between begin and end capture; then instantiation.
void AddCapture(TraceBuilder& b, TimeNs at, std::int64_t first_correlation) {
  b.AddApi({.start_ns = at, .end_ns = at + 5, .pid = 1, .tid = 1, .name = "cudaStreamBeginCapture_v10000"});
  b.AddCpuOp({.start_ns = at + 10,
              .end_ns = at + 400,
              .pid = 1,
              .tid = 1,
              .name = "nn.Module: Linear_0",
              .kind = CpuOpKind::kAnnotation});
  b.AddCpuOp({.start_ns = at + 20,
              .end_ns = at + 100,
              .pid = 1,
              .tid = 1,
              .name = "aten::mm",
              .input_dims = "[[64, 128], [128, 256]]",
              .input_types = "[\"c10::BFloat16\", \"c10::BFloat16\"]"});
  b.AddApi({.start_ns = at + 30,
            .end_ns = at + 40,
            .pid = 1,
            .tid = 1,
            .name = "cudaLaunchKernel",
            .correlation = first_correlation});
  b.AddCpuOp({.start_ns = at + 150, .end_ns = at + 250, .pid = 1, .tid = 1, .name = "aten::add"});
  b.AddApi({.start_ns = at + 160,
            .end_ns = at + 170,
            .pid = 1,
            .tid = 1,
            .name = "cudaLaunchKernel",
            .correlation = first_correlation + 1});
  b.AddApi({.start_ns = at + 300,
            .end_ns = at + 310,
            .pid = 1,
            .tid = 1,
            .name = "cudaMemsetAsync",
            .correlation = first_correlation + 2});
  b.AddApi({.start_ns = at + 500, .end_ns = at + 510, .pid = 1, .tid = 1, .name = "cudaStreamEndCapture"});
  b.AddApi({.start_ns = at + 520, .end_ns = at + 600, .pid = 1, .tid = 1, .name = "cudaGraphInstantiate"});
}

// Two replays of that graph: a graph launch and its kernel, kernel, memset.
void AddReplays(TraceBuilder& b, TimeNs at, std::int64_t first_correlation, bool shuffled_kinds = false) {
  for (int r = 0; r < 2; ++r) {
    const TimeNs t = at + r * 10'000;
    const std::int64_t c = first_correlation + r;
    b.AddApi(
        {.start_ns = t, .end_ns = t + 10, .pid = 1, .tid = 1, .name = "cudaGraphLaunch", .correlation = c});
    b.AddGpu({.start_ns = t + 1000, .end_ns = t + 2000, .name = "gemm", .correlation = c});
    // Written out of order: the replay's order is by start.
    b.AddGpu({.start_ns = t + 4000,
              .end_ns = t + 4100,
              .name = "memset",
              .kind = shuffled_kinds ? GpuKind::kKernel : GpuKind::kMemset,
              .correlation = c});
    b.AddGpu({.start_ns = t + 2500, .end_ns = t + 3000, .name = "add_kernel", .correlation = c});
  }
}

TEST(GraphReplay, ReplayedKernelsTakeTheCapturedOpsAndLayer) {
  TraceBuilder b;
  AddCapture(b, 0, 100);
  AddReplays(b, 100'000, 500);
  const model::Trace t = std::move(b).Finish();
  model::DataQuality q;
  const Joined j = Join(t, q);
  const GraphSummary& s = j.graphs.summary;
  EXPECT_EQ(s.kind, TraceKind::kGraphReplay);
  EXPECT_EQ(s.replays, 2);
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.instantiations, 1);
  EXPECT_EQ(s.captured_launches, 3);
  EXPECT_EQ(s.replayed_activities, 6);
  EXPECT_EQ(s.replayed_kernels, 4);
  EXPECT_EQ(s.replayed_kernel_ns, 2 * (1000 + 500));
  EXPECT_EQ(s.matched_activities, 6);
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    ASSERT_TRUE(j.graphs.replayed[i]);
    ASSERT_TRUE(j.graphs.captured[i].has_value()) << i;
    EXPECT_EQ(j.graphs.source[i], GraphMatchSource::kSequence);
    const std::string_view kernel = t.Str(t.gpu.name[i]);
    if (kernel == "memset") {
      EXPECT_FALSE(j.op[i].has_value());  // launched under no op during capture
      EXPECT_EQ(t.Str(t.api.name[j.graphs.captured[i].index()]), "cudaMemsetAsync");
      continue;
    }
    ASSERT_TRUE(j.op[i].has_value()) << kernel;
    EXPECT_EQ(t.Str(t.cpu.name[j.op[i].index()]), kernel == "gemm" ? "aten::mm" : "aten::add");
    ASSERT_TRUE(j.layer[i].has_value());
    EXPECT_EQ(t.Str(t.cpu.name[j.layer[i].index()]), "Linear_0");
    EXPECT_EQ(t.Str(t.api.name[j.launch[i].index()]), "cudaGraphLaunch");  // the step's launch stays
  }
  EXPECT_EQ(q.Get(Dq::kGraphReplayed), 6);
  EXPECT_EQ(q.Get(Dq::kGraphCaptureLaunch), 3);
  EXPECT_EQ(q.Get(Dq::kGraphReplayNoCapture), 0);
  EXPECT_EQ(q.Get(Dq::kGraphReplayUnmatched), 0);
  EXPECT_EQ(q.Get(Dq::kLaunchNoOp), 2);  // the two memsets
}

TEST(GraphReplay, WithoutACaptureReplayedKernelsAreCountedNotGuessed) {
  TraceBuilder b;
  AddReplays(b, 100'000, 500);
  const model::Trace t = std::move(b).Finish();
  model::DataQuality q;
  const Joined j = Join(t, q);
  EXPECT_EQ(j.graphs.summary.kind, TraceKind::kGraphReplay);
  EXPECT_EQ(j.graphs.summary.matched_activities, 0);
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    EXPECT_TRUE(j.graphs.replayed[i]);
    EXPECT_FALSE(j.op[i].has_value());
  }
  EXPECT_EQ(q.Get(Dq::kGraphReplayNoCapture), 6);
  EXPECT_EQ(q.GpuSeconds(Dq::kGraphReplayNoCapture), NsToSeconds(TimeNs{2 * (1000 + 100 + 500)}));
  EXPECT_EQ(q.Get(Dq::kGraphReplayUnmatched), 0);
}

TEST(GraphReplay, AReplayOfAnotherShapeMatchesNoCapture) {
  TraceBuilder b;
  AddCapture(b, 0, 100);
  AddReplays(b, 100'000, 500, /*shuffled_kinds=*/true);  // three kernels, the capture has a memset
  const model::Trace t = std::move(b).Finish();
  model::DataQuality q;
  const Joined j = Join(t, q);
  EXPECT_EQ(j.graphs.summary.matched_activities, 0);
  EXPECT_EQ(q.Get(Dq::kGraphReplayUnmatched), 6);
  EXPECT_EQ(q.Get(Dq::kGraphReplayNoCapture), 0);
}

TEST(GraphReplay, EagerLaunchesAreNoReplays) {
  TraceBuilder b;
  b.AddApi({.start_ns = 0, .end_ns = 10, .pid = 1, .tid = 1, .name = "cudaLaunchKernel", .correlation = 7});
  b.AddGpu({.start_ns = 20, .end_ns = 30, .name = "k", .correlation = 7});
  const model::Trace t = std::move(b).Finish();
  model::DataQuality q;
  const Joined j = Join(t, q);
  EXPECT_EQ(j.graphs.summary.kind, TraceKind::kEager);
  EXPECT_FALSE(j.graphs.replayed[0]);
  EXPECT_EQ(q.Get(Dq::kGraphReplayed), 0);
  EXPECT_EQ(TraceKindOf(t), TraceKind::kEager);
}

TEST(GraphReplay, ACaptureAloneIsACapture) {
  TraceBuilder b;
  AddCapture(b, 0, 100);
  const model::Trace t = std::move(b).Finish();
  model::DataQuality q;
  EXPECT_EQ(Join(t, q).graphs.summary.kind, TraceKind::kCapture);
  EXPECT_EQ(TraceKindOf(t), TraceKind::kCapture);
  // An instantiation with no capture in the window recorded none of the program's launches: the
  // window's work is eager.
  TraceBuilder only;
  only.AddApi({.start_ns = 0, .end_ns = 10, .pid = 1, .tid = 1, .name = "hipGraphInstantiate"});
  EXPECT_EQ(TraceKindOf(std::move(only).Finish()), TraceKind::kEager);
}

// `eager` eager activities that ran, each with its launch, then the capture of three launches.
model::Trace EagerThenCapture(int eager) {
  TraceBuilder b;
  for (int i = 0; i < eager; ++i) {
    const TimeNs t = i * 1000;
    b.AddApi({.start_ns = t,
              .end_ns = t + 10,
              .pid = 1,
              .tid = 1,
              .name = "cudaLaunchKernel",
              .correlation = i + 1});
    b.AddGpu({.start_ns = t + 100, .end_ns = t + 600, .name = "gemm", .correlation = i + 1});
  }
  AddCapture(b, 10'000'000, 900);
  return std::move(b).Finish();
}

// The kind weighs the captured launches against those that ran: the warm-up runs before a capture
// (three of the same launches) leave it a capture trace; an eager run with a side capture stays
// eager, judged on the work it ran.
TEST(GraphReplay, ACaptureTraceIsOneWhoseLaunchesWentIntoTheCapture) {
  for (auto [eager, kind] : {std::pair{0, TraceKind::kCapture}, std::pair{9, TraceKind::kCapture},
                             std::pair{12, TraceKind::kCapture}, std::pair{13, TraceKind::kEager},
                             std::pair{200, TraceKind::kEager}}) {
    const model::Trace t = EagerThenCapture(eager);
    model::DataQuality q;
    const Joined j = Join(t, q);
    EXPECT_EQ(j.graphs.summary.captured_launches, 3);
    EXPECT_EQ(j.graphs.summary.eager_activities, eager);
    EXPECT_EQ(j.graphs.summary.kind, kind) << eager << " eager activities";
    EXPECT_EQ(TraceKindOf(t), kind) << eager << " eager activities";
  }
  EXPECT_EQ(KindOf(1, 3, 0), TraceKind::kGraphReplay);  // a replay decides, whatever was captured
}

TEST(GraphReplay, ACaptureTraceBesideTheReplayIsJoinedBeforeIt) {
  TraceBuilder capture;
  AddCapture(capture, 5'000'000'000, 500);  // its correlation ids collide with the replay's
  TraceBuilder replay;
  AddReplays(replay, 100'000, 500);
  const model::Trace c = std::move(capture).Finish();
  const model::Trace merged = WithCapture(std::move(replay).Finish(), c);
  EXPECT_EQ(merged.api.size(), 2 + c.api.size());
  EXPECT_EQ(merged.cpu.size(), c.cpu.size());
  TimeNs last_capture_ns = 0;
  for (std::size_t a = 2; a < merged.api.size(); ++a) {
    EXPECT_EQ(merged.api.correlation[a], model::kNoId);
    last_capture_ns = std::max(last_capture_ns, merged.api.end_ns[a]);
  }
  EXPECT_LT(last_capture_ns, 100'000);
  model::DataQuality q;
  const Joined j = Join(merged, q);
  EXPECT_EQ(j.graphs.summary.matched_activities, 6);
  EXPECT_EQ(q.Get(Dq::kDuplicateCorrelation), 0);
  for (std::size_t i = 0; i < merged.gpu.size(); ++i) {
    if (merged.Str(merged.gpu.name[i]) != "gemm") continue;
    ASSERT_TRUE(j.op[i].has_value());
    EXPECT_EQ(merged.Str(merged.cpu.input_dims[j.op[i].index()]), "[[64, 128], [128, 256]]");
  }
}

}  // namespace
}  // namespace plasmient::join
