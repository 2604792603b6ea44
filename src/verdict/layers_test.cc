#include "verdict/layers.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace plasmient::verdict {
namespace {

using model::CpuOpKind;

// Seq_0 > Seq_1 > Linear_0 launches k0; Seq_0 > Linear_1 launches k1; k2 runs outside modules.
model::Trace NestedTrace() {
  model::TraceBuilder b;
  auto range = [&](TimeNs s, TimeNs e, std::string_view name) {
    b.AddCpuOp({.start_ns = s, .end_ns = e, .tid = 1, .name = name, .kind = CpuOpKind::kAnnotation});
  };
  range(0, 1000, "nn.Module: Seq_0");
  range(10, 400, "nn.Module: Seq_1");
  range(20, 300, "nn.Module: Linear_0");
  range(500, 900, "nn.Module: Linear_1");
  b.AddApi({.start_ns = 30, .end_ns = 40, .tid = 1, .correlation = 1});
  b.AddApi({.start_ns = 600, .end_ns = 610, .tid = 1, .correlation = 2});
  b.AddApi({.start_ns = 2000, .end_ns = 2010, .tid = 1, .correlation = 3});
  b.AddGpu({.start_ns = 100, .end_ns = 200, .name = "gemm", .correlation = 1});
  b.AddGpu({.start_ns = 700, .end_ns = 750, .name = "gemm", .correlation = 2});
  b.AddGpu(
      {.start_ns = 2100, .end_ns = 2130, .name = "copy", .kind = model::GpuKind::kMemcpy, .correlation = 3});
  return std::move(b).Finish();
}

TEST(Layers, RollUpSumsSubtreesAndCountsANestedTypeOnce) {
  model::Trace t = NestedTrace();
  join::Joined j = join::Join(t, t.quality);
  ActivityFacts f;
  f.kept.assign(3, 1);
  f.share_ns = {100, 50, 30};
  f.useful_ns = {40, 0, 0};
  f.flops = {1e6, 2e6, -1};
  f.loss = {Loss::kMemoryBound, Loss::kComputeInefficiency, Loss::kDataMovement};
  Layers layers = RollUpLayers(t, j, f, 1e-6);

  ASSERT_EQ(layers.nodes.size(), 5u);
  std::vector<std::string> paths;
  for (const auto& n : layers.nodes) paths.push_back(n.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"Seq_0", "Seq_0/Seq_1", "Seq_0/Seq_1/Linear_0", "Seq_0/Linear_1",
                                             "(no module)"}));
  const LayerFigures& top = layers.nodes[0];
  EXPECT_DOUBLE_EQ(top.gpu_time_s, 150e-9);
  EXPECT_DOUBLE_EQ(top.useful_s, 40e-9);
  EXPECT_DOUBLE_EQ(top.loss_s[static_cast<std::size_t>(Loss::kMemoryBound)], 60e-9);
  EXPECT_DOUBLE_EQ(top.loss_s[static_cast<std::size_t>(Loss::kComputeInefficiency)], 50e-9);
  EXPECT_DOUBLE_EQ(top.flops, 3e6);
  EXPECT_EQ(top.kernels, 2);
  EXPECT_EQ(top.calls, 1);
  ASSERT_EQ(top.top_kernels.size(), 1u);
  EXPECT_EQ(top.top_kernels[0].first, "gemm");
  EXPECT_EQ(layers.nodes[2].parent, 1);
  EXPECT_EQ(layers.nodes[3].parent, 0);
  EXPECT_EQ(layers.nodes[3].depth, 1);
  EXPECT_DOUBLE_EQ(layers.share_of_window(layers.nodes[4]), 0.03);
  // The tree's GPU time is its top nodes': Seq_0's 150 ns and (no module)'s 30 ns.
  EXPECT_DOUBLE_EQ(layers.gpu_time_s(), 180e-9);
  EXPECT_DOUBLE_EQ(layers.share_of_gpu_time(layers.nodes[3]), 50.0 / 180.0);
  EXPECT_DOUBLE_EQ(layers.share_of_gpu_time(layers.nodes[4]), 30.0 / 180.0);
  EXPECT_EQ(Layers{}.share_of_gpu_time(top), 0);  // an empty tree has no GPU time to share
  EXPECT_EQ(layers.nodes[4].main_loss(), Loss::kDataMovement);

  ASSERT_EQ(layers.types.size(), 3u);
  EXPECT_EQ(layers.types[0].type, "Seq");  // k0 counted once although two Seq ranges hold it
  EXPECT_DOUBLE_EQ(layers.types[0].gpu_time_s, 150e-9);
  EXPECT_EQ(layers.types[0].instances, 2);
  EXPECT_EQ(layers.types[1].type, "Linear");
  EXPECT_DOUBLE_EQ(layers.types[1].gpu_time_s, 150e-9);
  EXPECT_DOUBLE_EQ(layers.types[1].achieved_fraction(), 40.0 / 150.0);
  EXPECT_EQ(layers.types[2].type, "(no module)");

  std::vector<RankVerdict> ranks(2);
  ranks[0].layers = layers;
  ranks[1].layers = layers;
  ranks[1].layers.nodes.pop_back();  // this rank ran nothing outside modules
  ranks[1].layers.types.pop_back();
  Layers job = MergeLayers(ranks);
  ASSERT_EQ(job.nodes.size(), 5u);
  EXPECT_DOUBLE_EQ(job.window_s, 2e-6);
  EXPECT_DOUBLE_EQ(job.nodes[0].gpu_time_s, 300e-9);
  EXPECT_EQ(job.nodes[0].calls, 2);
  EXPECT_EQ(job.nodes.back().path, "(no module)");
  EXPECT_DOUBLE_EQ(job.nodes.back().gpu_time_s, 30e-9);
  EXPECT_EQ(job.types[0].instances, 2);  // distinct paths, not summed over ranks
  EXPECT_DOUBLE_EQ(job.types[0].gpu_time_s, 300e-9);
}

}  // namespace
}  // namespace plasmient::verdict
