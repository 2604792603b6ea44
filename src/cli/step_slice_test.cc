#include "cli/step_slice.h"

#include <gtest/gtest.h>

namespace plasmient::cli {
namespace {

TEST(ParseStepSlice, PythonSliceSyntax) {
  auto s = ParseStepSlice(":-1");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->begin);
  EXPECT_EQ(*s->end, -1);
  EXPECT_TRUE(ParseStepSlice("2:"));
  EXPECT_FALSE(ParseStepSlice("2"));
  EXPECT_FALSE(ParseStepSlice("a:b"));
}

}  // namespace
}  // namespace plasmient::cli
