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

LayerFigures Node(std::string path, std::string type, std::int32_t parent, double gpu_time_s,
                  std::vector<std::pair<std::string, double>> top_kernels) {
  LayerFigures f;
  f.name = path.substr(path.rfind('/') + 1);
  f.path = std::move(path);
  f.type = std::move(type);
  f.depth = parent < 0 ? 0 : 1;
  f.parent = parent;
  f.instances = 1;
  f.calls = 1;
  f.kernels = 2;
  f.gpu_time_s = gpu_time_s;
  f.useful_s = gpu_time_s / 3;
  f.top_kernels = std::move(top_kernels);
  return f;
}

TEST(LayerFigures, AddKeepsTheLargestKernelsTiesInTheirOrder) {
  LayerFigures f = Node("a", "A", -1, 1, {{"k1", 1}, {"k2", 2}});
  f.Add(Node("a", "A", -1, 1, {{"k3", 2}, {"k1", 0.5}, {"k4", 0.25}}));
  ASSERT_EQ(f.top_kernels.size(), kLayerTopKernels);
  EXPECT_EQ(f.top_kernels[0], (std::pair<std::string, double>{"k2", 2}));
  EXPECT_EQ(f.top_kernels[1], (std::pair<std::string, double>{"k3", 2}));  // after k2, seen first
  EXPECT_EQ(f.top_kernels[2], (std::pair<std::string, double>{"k1", 1.5}));
}

// Ranks whose trees differ in order and in what they hold merge to the same job on any number of
// threads: each node's and type's figures summed in rank order.
TEST(MergeLayers, TheSameJobOnAnyNumberOfThreads) {
  auto rank = [](bool swapped, bool extra, double scale) {
    RankVerdict r;
    r.layers.window_s = scale;
    auto& n = r.layers.nodes;
    n.push_back(Node("M_0", "M", -1, 0.9 * scale, {{"gemm", 0.5 * scale}, {"softmax", 0.1}}));
    LayerFigures b = Node("M_0/L_0", "L", 0, 0.1 * scale, {{"gemm", 0.1 * scale}});
    LayerFigures c = Node("M_0/L_1", "L", 0, 0.7 * scale, {{"gemm", 0.4 * scale}, {"copy", 0.3}});
    n.push_back(swapped ? c : b);
    n.push_back(swapped ? b : c);
    if (extra) n.push_back(Node("M_0/N_0", "N", 0, 0.1 * scale, {{"norm", 0.1 * scale}}));
    n.push_back(Node("(no module)", "(no module)", -1, 0.05 * scale, {{"copy", 0.05}}));
    for (const char* type : {"M", "L", "(no module)"})
      r.layers.types.push_back(Node("", type, -1, scale, {}));
    if (extra) r.layers.types.push_back(Node("", "N", -1, 0.1 * scale, {}));
    return r;
  };
  std::vector<RankVerdict> ranks;
  for (int i = 0; i < 9; ++i) ranks.push_back(rank(i % 3 == 1, i % 4 == 2, 1 + 0.1 * i));
  const Layers one = MergeLayers(ranks, 1);
  ASSERT_EQ(one.nodes.size(), 5u);
  EXPECT_EQ(one.nodes[0].path, "M_0");
  EXPECT_EQ(one.nodes[1].path, "M_0/L_0");  // first seen in rank 0's order
  EXPECT_EQ(one.nodes[2].path, "M_0/L_1");
  EXPECT_EQ(one.nodes[3].path, "M_0/N_0");
  EXPECT_EQ(one.nodes[3].parent, 0);
  EXPECT_EQ(one.nodes[4].path, "(no module)");
  EXPECT_EQ(one.nodes[2].calls, 9);
  EXPECT_EQ(one.nodes[2].instances, 1);
  EXPECT_EQ(one.nodes[3].calls, 2);  // ranks 2 and 6
  ASSERT_EQ(one.types.size(), 4u);
  EXPECT_EQ(one.types[1].type, "L");
  EXPECT_EQ(one.types[1].instances, 2);  // M_0/L_0 and M_0/L_1
  double l1 = 0, gemm = 0;
  for (const auto& r : ranks) {
    l1 += r.layers.nodes[r.layers.nodes[1].path == "M_0/L_1" ? 1 : 2].gpu_time_s;
    gemm += r.layers.nodes[0].top_kernels[0].second;
  }
  EXPECT_EQ(one.nodes[2].gpu_time_s, l1);  // exactly: summed in rank order
  EXPECT_EQ(one.nodes[0].top_kernels[0], (std::pair<std::string, double>{"gemm", gemm}));
  for (std::size_t threads : {2, 3, 5}) {
    const Layers many = MergeLayers(ranks, threads);
    EXPECT_EQ(many.window_s, one.window_s);
    ASSERT_EQ(many.nodes.size(), one.nodes.size()) << threads << " threads";
    ASSERT_EQ(many.types.size(), one.types.size()) << threads << " threads";
    auto same = [&](const LayerFigures& a, const LayerFigures& b) {
      EXPECT_EQ(a.path, b.path);
      EXPECT_EQ(a.type, b.type);
      EXPECT_EQ(a.parent, b.parent);
      EXPECT_EQ(a.instances, b.instances);
      EXPECT_EQ(a.calls, b.calls);
      EXPECT_EQ(a.kernels, b.kernels);
      EXPECT_EQ(a.gpu_time_s, b.gpu_time_s);
      EXPECT_EQ(a.useful_s, b.useful_s);
      EXPECT_EQ(a.top_kernels, b.top_kernels);
    };
    for (std::size_t k = 0; k < one.nodes.size(); ++k) same(many.nodes[k], one.nodes[k]);
    for (std::size_t k = 0; k < one.types.size(); ++k) same(many.types[k], one.types[k]);
  }
}

}  // namespace
}  // namespace plasmient::verdict
