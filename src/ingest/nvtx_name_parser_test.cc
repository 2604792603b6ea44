#include "ingest/nvtx_name_parser.h"

#include <gtest/gtest.h>

namespace plasmient::ingest {
namespace {

using model::CpuOpKind;

TEST(NvtxRangeName, TorchEmitNvtxWithShapes) {
  auto m = ParseNvtxRangeName("aten::addmm, seq = 57, sizes = [[1024], [64, 512], [512, 1024], [], []]");
  EXPECT_EQ(m.kind, CpuOpKind::kOp);
  EXPECT_EQ(m.name, "aten::addmm");
  EXPECT_EQ(m.input_dims, "[[1024],[64,512],[512,1024],[],[]]");
}

TEST(NvtxRangeName, NewerTorchFieldsAroundTheShapes) {
  auto m = ParseNvtxRangeName(
      "aten::mm, seq = 12, op_id = 3, sizes = [[8, 512], [512, 1024]], input_op_ids = [1, 2]");
  EXPECT_EQ(m.name, "aten::mm");
  EXPECT_EQ(m.input_dims, "[[8,512],[512,1024]]");
}

TEST(NvtxRangeName, TorchOpWithoutShapes) {
  auto m = ParseNvtxRangeName("aten::empty, seq = 3");
  EXPECT_EQ(m.kind, CpuOpKind::kOp);
  EXPECT_EQ(m.name, "aten::empty");
  EXPECT_EQ(m.input_dims, "");
  EXPECT_EQ(ParseNvtxRangeName("aten::zeros").kind, CpuOpKind::kOp);
}

TEST(NvtxRangeName, PlainTextStaysAnAnnotation) {
  for (const char* text : {"forward", "layer 3, attention", "ncclAllReduce", "sizes = [[1]]", ""}) {
    auto m = ParseNvtxRangeName(text);
    EXPECT_EQ(m.kind, CpuOpKind::kAnnotation) << text;
    EXPECT_EQ(m.name, text);
  }
}

TEST(NvtxRangeName, UnbalancedShapesAreDropped) {
  auto m = ParseNvtxRangeName("aten::mm, seq = 1, sizes = [[8, 512], [512");
  EXPECT_EQ(m.kind, CpuOpKind::kOp);
  EXPECT_EQ(m.input_dims, "");
}

TEST(NvtxRangeName, ProfilerStep) {
  auto m = ParseNvtxRangeName("ProfilerStep#17");
  EXPECT_EQ(m.kind, CpuOpKind::kStep);
  EXPECT_EQ(m.step, 17);
  EXPECT_EQ(m.name, "ProfilerStep#17");
  auto with_fields = ParseNvtxRangeName("ProfilerStep#2, op_id = 9");
  EXPECT_EQ(with_fields.step, 2);
  EXPECT_EQ(with_fields.name, "ProfilerStep#2");
  EXPECT_EQ(ParseNvtxRangeName("ProfilerStep#x").kind, CpuOpKind::kAnnotation);
}

}  // namespace
}  // namespace plasmient::ingest
