#include "verdict/gemm_shapes.h"

#include <gtest/gtest.h>

namespace plasmient::verdict {
namespace {

TEST(GemmShapes, EachActivityGetsBackItsShapeAndEqualShapesAreKeptOnce) {
  GemmShapes s;
  s.Reset(4);
  s.Set(0, {4096, 1024, 512});
  s.Set(2, {8, 16, 32});
  s.Set(3, {4096, 1024, 512});
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0], (GemmShapes::Mnk{4096, 1024, 512}));
  EXPECT_EQ(s[1], GemmShapes::Mnk{});  // never set: no GEMM
  EXPECT_EQ(s[2], (GemmShapes::Mnk{8, 16, 32}));
  EXPECT_EQ(s[3], s[0]);
  s.Set(3, {});  // zeros: no GEMM again
  EXPECT_EQ(s[3], GemmShapes::Mnk{});
  EXPECT_EQ(s[0], (GemmShapes::Mnk{4096, 1024, 512}));
}

}  // namespace
}  // namespace plasmient::verdict
