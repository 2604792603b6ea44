#include "verdict/job_inputs.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace plasmient::verdict {
namespace {

model::Trace Capture(std::string path, std::int64_t rank, std::int64_t pid, TimeNs first_ns) {
  model::TraceBuilder b;
  b.AddApi({.start_ns = first_ns - 100, .end_ns = first_ns - 50, .pid = pid, .name = "cudaLaunchKernel"});
  b.AddGpu({.start_ns = first_ns, .end_ns = first_ns + 1000, .name = "k"});
  model::Trace t = std::move(b).Finish();
  t.info.path = std::move(path);
  t.info.rank = rank;
  return t;
}

TEST(InputSet, TheSameCaptureCountsOnce) {
  InputSet seen;
  EXPECT_EQ(seen.Repeats(Capture("a/rank0.json", 0, 7, 5000)), "");
  EXPECT_EQ(seen.Repeats(Capture("b/copy.json", 0, 7, 5000)), "a/rank0.json");
  EXPECT_EQ(seen.Repeats(Capture("a/rank1.json", 1, 7, 5000)), "");  // another rank
  EXPECT_EQ(seen.Repeats(Capture("c/later.json", 0, 7, 9000)), "");  // another capture
  EXPECT_EQ(seen.Repeats(Capture("d/other.json", 0, 8, 5000)), "");  // another process
}

RankVerdict Rank(std::string path, std::int64_t rank, std::int64_t world, TimeNs start_ns) {
  RankVerdict r;
  r.path = std::move(path);
  r.rank = rank;
  r.world_size = world;
  r.run.start_ns = start_ns;
  r.run.end_ns = start_ns + 3 * kNsPerS;
  r.device = {.name = "NVIDIA H100 SXM 80GB", .key = "h100_sxm", .source = "trace: name"};
  return r;
}

constexpr TimeNs kEpoch2023 = 1'682'725'898'000'000'000;

TEST(NotOneJob, RanksOfOneRunAreOneJob) {
  std::vector<RankVerdict> ranks = {Rank("r0.json", 0, 8, kEpoch2023),
                                    Rank("r1.json", 1, 8, kEpoch2023 + kNsPerMs),
                                    Rank("r2.json", 2, -1, kEpoch2023)};
  EXPECT_TRUE(NotOneJob(ranks).empty());
}

TEST(NotOneJob, NamesTheEvidence) {
  auto world = NotOneJob({Rank("dev.json", 0, 128, kEpoch2023), Rank("synth.json", 1, 4, kEpoch2023)});
  ASSERT_EQ(world.size(), 1u);
  EXPECT_EQ(world[0], "world size 128 in dev.json but 4 in synth.json");

  auto gpu = Rank("b.json", 1, 8, kEpoch2023);
  gpu.device = {.name = "NVIDIA A100 SXM4 80GB", .key = "a100_sxm_80gb", .source = "trace: name"};
  auto assumed = Rank("c.json", 2, 8, kEpoch2023);
  assumed.device = {.name = "NVIDIA H200 SXM", .key = "h200_sxm", .source = "assumed H100 SXM"};
  auto why = NotOneJob({Rank("a.json", 0, 8, kEpoch2023), gpu, assumed});
  ASSERT_EQ(why.size(), 1u);  // an assumed device is no evidence
  EXPECT_EQ(why[0], "GPU NVIDIA H100 SXM 80GB in a.json but NVIDIA A100 SXM4 80GB in b.json");

  why = NotOneJob({Rank("a.json", 0, 8, kEpoch2023), Rank("b.json", 0, 8, kEpoch2023)});
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0], "rank 0 in a.json and again in b.json");

  const TimeNs months = 100LL * 24 * 3600 * kNsPerS;
  why = NotOneJob({Rank("a.json", 0, 8, kEpoch2023), Rank("b.json", 1, 8, kEpoch2023 + months)});
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("b.json was captured 2400.0 h after a.json"), std::string::npos) << why[0];
  // Numbered steps say which steps each trace holds: capture times count for nothing then (hosts
  // without clock sync can be hours apart).
  auto numbered = [&](std::string path, std::int64_t rank, TimeNs start) {
    RankVerdict r = Rank(std::move(path), rank, 8, start);
    r.steps.push_back({.number = 12, .figures = {}});
    return r;
  };
  EXPECT_TRUE(
      NotOneJob({numbered("a.json", 0, kEpoch2023), numbered("b.json", 1, kEpoch2023 + months)}).empty());
  // Clocks that count from boot say nothing about when a capture was taken.
  EXPECT_TRUE(NotOneJob({Rank("a.json", 0, 8, 0), Rank("b.json", 1, 8, months)}).empty());
}

}  // namespace
}  // namespace plasmient::verdict
