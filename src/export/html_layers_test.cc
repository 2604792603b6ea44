#include "export/html_layers.h"

#include <gtest/gtest.h>

namespace plasmient::exporting {
namespace {

using verdict::LayerFigures;

LayerFigures Node(std::string path, std::int32_t depth, std::int32_t parent, double gpu_time_s,
                  double useful_s) {
  LayerFigures f;
  f.name = path.substr(path.rfind('/') + 1);
  f.path = std::move(path);
  f.type = f.name;
  f.depth = depth;
  f.parent = parent;
  f.calls = 1;
  f.kernels = 1;
  f.gpu_time_s = gpu_time_s;
  f.useful_s = useful_s;
  f.loss_s[static_cast<std::size_t>(verdict::Loss::kMemoryBound)] = gpu_time_s - useful_s;
  return f;
}

// Net_0 (9 s) holds Big_0 (8 s) and Tiny_0 .. Tiny_9 (0.001 s each); 1 s under no module.
verdict::Layers Tree() {
  verdict::Layers l;
  l.window_s = 12;
  l.nodes.push_back(Node("Net_0", 0, -1, 9, 3));
  l.nodes.push_back(Node("Net_0/Big_0", 1, 0, 8, 2));
  for (int k = 0; k < 10; ++k)
    l.nodes.push_back(Node("Net_0/Tiny_" + std::to_string(k), 1, 0, 0.001, 0.0005));
  l.nodes.push_back(Node("(no module)", 0, -1, 1, 0));
  l.types = {l.nodes[0], l.nodes[1]};
  return l;
}

std::size_t Count(const std::string& s, std::string_view what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlLayers, BoxesCarryTheFiguresAsJsonWritesThem) {
  std::string html = LayersSection(Tree());
  ASSERT_NE(html.find("<section id=\"layers\">"), std::string::npos);
  ASSERT_NE(html.find("<svg id=\"icicle\""), std::string::npos);
  // Net_0: 9 s of 10 s of GPU time is 1008 px of 1120; 3 of 9 useful.
  EXPECT_NE(html.find("data-path=\"Net_0\" data-gpu-time-s=\"9\" data-share=\"0.75\" "
                      "data-achieved=\"0.3333333333333333\""),
            std::string::npos)
      << html.substr(0, 2000);
  EXPECT_NE(html.find("width=\"1008.00\""), std::string::npos);
  EXPECT_NE(html.find("<g class=\"box catch\" data-path=\"(no module)\""), std::string::npos);
  EXPECT_NE(html.find("memory-bound kernels 67%"), std::string::npos);  // the hover text's losses
  EXPECT_EQ(Count(html, "<tr data-type="), 2u);
}

TEST(HtmlLayers, SmallNodesFoldIntoOneMoreBoxPerParent) {
  // 0.001 s is 0.11 px: the ten Tiny nodes fold into one box under Net_0.
  std::string html = LayersSection(Tree());
  EXPECT_EQ(Count(html, "data-path=\"Net_0/Tiny_"), 0u);
  EXPECT_NE(html.find("data-parent=\"Net_0\" data-hidden=\"10\" data-gpu-time-s=\"0.01"), std::string::npos)
      << html;
  EXPECT_NE(html.find("10 nodes narrower than 1.0 px"), std::string::npos);
  // A box budget of 2 keeps the two widest nodes and folds the rest, at the top too.
  std::string tight = LayersSection(Tree(), {.max_boxes = 2});
  EXPECT_EQ(Count(tight, "data-path="), 2u);
  EXPECT_NE(tight.find("data-parent=\"\" data-hidden=\"1\""), std::string::npos);  // (no module)
  EXPECT_NE(tight.find("data-parent=\"Net_0\" data-hidden=\"10\""), std::string::npos);
}

TEST(HtmlLayers, EveryBoxCarriesWhatTheZoomScriptRelabelsItFrom) {
  std::string html = LayersSection(Tree());
  // Net_0, Big_0, (no module) and the one "more" box: each a <text>, even when too narrow for one.
  EXPECT_EQ(Count(html, "<g class=\"box"), 4u);
  EXPECT_EQ(Count(html, "\" data-label=\""), 4u);
  EXPECT_NE(html.find("data-label=\"Net_0\" data-pct=\"33%\">Net_0 · 33%</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("data-label=\"10 more\" data-pct=\"50%\"></text>"), std::string::npos);  // 1.1 px wide
  // One bare script after the chart, given the chart's geometry, and the crumbs it writes to.
  EXPECT_EQ(Count(html, "<script>"), 1u);
  EXPECT_EQ(Count(html, "</script>"), 1u);
  EXPECT_LT(html.find("<p id=\"icicle-crumbs\""), html.find("<svg id=\"icicle\""));
  EXPECT_LT(html.find("</svg>"), html.find("<script>"));
  EXPECT_NE(html.find("var G = {row: 22, ch: 6.8, minLabel: 28, pad: 4};"), std::string::npos);
}

TEST(HtmlLayers, DepthLimitFoldsDeeperNodes) {
  std::string html = LayersSection(Tree(), {.max_depth = 1});
  EXPECT_EQ(Count(html, "data-path=\"Net_0/"), 0u);
  EXPECT_NE(html.find("data-parent=\"Net_0\" data-hidden=\"11\""), std::string::npos);
}

TEST(HtmlLayers, NothingWithoutModuleRanges) {
  verdict::Layers l;
  l.window_s = 1;
  l.nodes.push_back(Node("(no module)", 0, -1, 1, 0.5));
  EXPECT_EQ(LayersSection(l), "");
  EXPECT_EQ(LayersSection(verdict::Layers{}), "");
}

TEST(HtmlLayers, NamesAreEscaped) {
  verdict::Layers l = Tree();
  l.nodes[0].path = l.nodes[0].name = "<b>&";
  std::string html = LayersSection(l);
  EXPECT_EQ(html.find("<b>&"), std::string::npos);
  EXPECT_NE(html.find("data-path=\"&lt;b&gt;&amp;\""), std::string::npos);
}

}  // namespace
}  // namespace plasmient::exporting
