#include "export/whatif_sink.h"

#include <gtest/gtest.h>
#include <simdjson.h>

namespace plasmient::exporting {
namespace {

whatif::Projection Sample() {
  whatif::Projection p;
  p.levers.batch_scale = 32;
  p.levers.overlap_comm = true;
  p.current.figures.wall_s = 10;
  p.current.figures.useful_s = 1;
  p.current.figures.loss_s[static_cast<std::size_t>(verdict::Loss::kMemoryBound)] = 9;
  p.current.headroom = 10;
  p.projected.figures.wall_s = 20;
  p.projected.figures.useful_s = 8;
  p.projected.figures.loss_s[static_cast<std::size_t>(verdict::Loss::kMemoryBound)] = 12;
  p.projected.headroom = 2.5;
  p.work_scale = 32;
  p.throughput_gain = 16;
  p.bound_changes.push_back(
      {.kernel = "sm90_gemm", .from = "memory", .to = "compute", .calls = 3, .projected_s = 0.5});
  p.warnings.push_back("outside the trusted range: example");
  return p;
}

TEST(WhatIfSink, JsonCarriesBothSidesLeversAndWarnings) {
  const std::string json = WhatIfToJson(Sample(), {.price_per_gpu_hour = 4, .gpus = 2, .device = "H100"});
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(doc["schema"].get_string()), "plasmient.whatif/1");
  EXPECT_DOUBLE_EQ(doc["current"]["achieved_fraction"].get_double(), 0.1);
  EXPECT_DOUBLE_EQ(doc["projected"]["achieved_fraction"].get_double(), 0.4);
  EXPECT_DOUBLE_EQ(doc["projected"]["losses"]["memory_bound"].get_double(), 0.6);
  EXPECT_DOUBLE_EQ(doc["projected"]["headroom"].get_double(), 2.5);
  EXPECT_DOUBLE_EQ(doc["levers"]["batch_scale"].get_double(), 32);
  EXPECT_TRUE(doc["levers"]["overlap_comm"].get_bool().value());
  EXPECT_TRUE(doc["levers"]["microbatches"].is_null());
  // $4 × (1 − 0.4) per GPU-hour; × 8,760 h × 2 GPUs per year; 1/16 the GPU time per unit of work.
  EXPECT_DOUBLE_EQ(doc["projected"]["bill"]["wasted_per_gpu_hour"].get_double(), 2.4);
  EXPECT_DOUBLE_EQ(doc["projected"]["bill"]["wasted_per_year"].get_double(), 2.4 * 8760 * 2);
  EXPECT_DOUBLE_EQ(doc["projected"]["bill"]["relative_cost_per_work"].get_double(), 1.0 / 16);
  EXPECT_EQ(doc["bound_changes"].get_array().size(), 1u);
  EXPECT_EQ(doc["warnings"].get_array().size(), 1u);
}

TEST(WhatIfSink, TerminalShowsBothColumnsTheMovesAndTheWarnings) {
  const std::string text =
      RenderWhatIfTerminal(Sample(), {.price_per_gpu_hour = 4, .gpus = 2, .device = "H100"}, false);
  EXPECT_NE(text.find("batch ×32, communication overlapped"), std::string::npos) << text;
  EXPECT_NE(text.find("10%"), std::string::npos) << text;
  EXPECT_NE(text.find("40%"), std::string::npos) << text;
  EXPECT_NE(text.find("memory → compute"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: outside the trusted range"), std::string::npos) << text;
  EXPECT_EQ(text.find("\x1b["), std::string::npos) << "colour without asking";
}

}  // namespace
}  // namespace plasmient::exporting
