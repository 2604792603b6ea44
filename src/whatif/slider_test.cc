#include "whatif/slider.h"

#include <gtest/gtest.h>

namespace plasmient::whatif {
namespace {

// One rank, one stream: a memory-bound GEMM on 32 MiB of weights launched every 100 µs.
RankTable GemmRank() {
  RankTable t;
  t.rank = 0;
  t.peak_flops_per_s = 1e15;
  t.bandwidth_bytes_per_s = 1e12;
  t.steps = 1;
  t.names = {"gemm"};
  const double w = 2.0 * 4096 * 4096;
  for (int i = 0; i < 4; ++i) {
    ActivityRow r;
    r.launch_ns = i * 100'000;
    r.start_ns = r.launch_ns + 4'000;
    r.end_ns = r.start_ns + 45'000;
    r.flops = w;
    r.bytes = w + 16'384;
    r.weight_bytes = w;
    r.peak_flops_per_s = t.peak_flops_per_s;
    r.heavy = true;
    r.step = join::StepRowId(0);
    r.name = 0;
    r.loss = verdict::Loss::kMemoryBound;
    t.rows.push_back(r);
  }
  return t;
}

verdict::JobVerdict JobOf(const RankTable& t) {
  verdict::JobVerdict job;
  job.job.wall_s = static_cast<double>(t.rows.back().end_ns - t.rows.front().start_ns) * 1e-9;
  return job;
}

TEST(Slider, EverySettingIsTheProjectionOfItsLevers) {
  std::vector<RankTable> tables = {GemmRank()};
  const verdict::JobVerdict job = JobOf(tables[0]);
  const Slider s = ProjectSlider(tables, job);
  ASSERT_EQ(s.batch_scales.size(), std::size(kSliderBatchScales));
  // No exposed communication, no pipeline: CUDA graphs is the one toggle.
  ASSERT_EQ(s.toggles.size(), 1u);
  EXPECT_EQ(s.toggles[0].key, "cuda-graphs");
  ASSERT_EQ(s.points.size(), s.batch_scales.size() * 2);
  for (std::size_t b = 0; b < s.batch_scales.size(); ++b) {
    for (std::size_t mask = 0; mask < 2; ++mask) {
      auto want = Project(tables, job, {.batch_scale = s.batch_scales[b], .cuda_graphs = mask == 1});
      ASSERT_TRUE(want) << want.error().message;
      const Projection& got = s.At(b, mask);
      EXPECT_EQ(got.levers.batch_scale, s.batch_scales[b]);
      EXPECT_EQ(got.levers.cuda_graphs, mask == 1);
      EXPECT_EQ(got.projected.figures.achieved(), want->projected.figures.achieved()) << b << "," << mask;
      EXPECT_EQ(got.throughput_gain, want->throughput_gain);
    }
  }
  // A larger batch reuses the weights: the achieved fraction climbs along the slider.
  EXPECT_GT(s.At(6, 0).projected.figures.achieved(), 4 * s.At(0, 0).projected.figures.achieved());
}

TEST(Slider, NoGpuActivityNoPanel) {
  const std::vector<RankTable> tables = {GemmRank()};
  EXPECT_TRUE(ProjectSlider(tables, verdict::JobVerdict{}).points.empty());
  EXPECT_TRUE(ProjectSlider(std::span<const RankTable>{}, JobOf(tables[0])).points.empty());
}

TEST(Slider, ExposedCommunicationOffersTheOverlapToggle) {
  std::vector<RankTable> tables = {GemmRank()};
  verdict::JobVerdict job = JobOf(tables[0]);
  job.job.loss_s[static_cast<std::size_t>(verdict::Loss::kExposedCommunication)] = 0.1 * job.job.wall_s;
  const Slider s = ProjectSlider(tables, job);
  ASSERT_EQ(s.toggles.size(), 2u);
  EXPECT_EQ(s.toggles[0].key, "overlap-comm");
  EXPECT_EQ(s.points.size(), s.batch_scales.size() * 4);
  EXPECT_TRUE(s.At(3, 1).levers.overlap_comm);
  EXPECT_FALSE(s.At(3, 1).levers.cuda_graphs);
  EXPECT_TRUE(s.At(3, 3).levers.cuda_graphs);
}

}  // namespace
}  // namespace plasmient::whatif
