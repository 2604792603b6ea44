#include "roofline/op_args_parser.h"

#include <array>
#include <string>

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

TEST(OpDims, PlainShapesAndEmptyArguments) {
  OpDims d;
  ASSERT_TRUE(d.Parse("[[8,512],[512,1024],[]]"));
  ASSERT_EQ(d.arg_count(), 3);
  ASSERT_EQ(d.Shape(0).size(), 2u);
  EXPECT_EQ(d.Shape(0)[1], 512);
  EXPECT_EQ(d.Shape(1)[1], 1024);
  EXPECT_TRUE(d.Shape(2).empty());
  EXPECT_TRUE(d.Shape(7).empty());  // out of range
  EXPECT_FALSE(d.IsList(0));
}

TEST(OpDims, TensorListsWithSpaces) {
  OpDims d;
  ASSERT_TRUE(d.Parse("[[[1, 559, 32], [1, 559, 32]], []]"));
  ASSERT_EQ(d.arg_count(), 2);
  EXPECT_TRUE(d.IsList(0));
  EXPECT_EQ(d.ShapeCount(0), 2);
  EXPECT_EQ(d.ListShape(0, 1)[1], 559);
  EXPECT_TRUE(d.Shape(0).empty());  // a list has no plain shape
  ASSERT_TRUE(d.Parse("[[[2873320]], [], []]"));
  EXPECT_EQ(d.ListShape(0, 0)[0], 2873320);
}

TEST(OpDims, EmptyAndMalformed) {
  OpDims d;
  EXPECT_TRUE(d.Parse("[]"));
  EXPECT_EQ(d.arg_count(), 0);
  EXPECT_FALSE(d.Parse("[[8,512],[512"));
  EXPECT_FALSE(d.Parse("[[8,x]]"));
  EXPECT_FALSE(d.Parse("[[8,512]] trailing"));
  EXPECT_FALSE(d.Parse("null"));
  EXPECT_FALSE(d.Parse("[[[[1]]]]"));  // deeper than a list of shapes
  EXPECT_FALSE(d.Parse("[[-1, 5]]"));  // a size is never negative
}

TEST(OpDims, ArgumentsPastCapacityAreSkippedAndFlagged) {
  std::string many = "[";
  for (int i = 0; i < kMaxOpArgs + 5; ++i) many += i ? ",[2, 7]" : "[3]";
  many += ",[[1],[2]]]";
  OpDims d;
  ASSERT_TRUE(d.Parse(many));
  EXPECT_TRUE(d.truncated());
  EXPECT_EQ(d.arg_count(), kMaxOpArgs);
  EXPECT_EQ(d.Shape(0)[0], 3);
  EXPECT_EQ(d.Shape(1)[1], 7);
  EXPECT_FALSE(d.Parse(many.substr(0, many.size() - 1)));  // still validated
  std::string long_list = "[[";
  for (int i = 0; i < kMaxShapes + 3; ++i) long_list += i ? ",[4]" : "[4]";
  long_list += "],[5]]";
  ASSERT_TRUE(d.Parse(long_list));
  EXPECT_TRUE(d.truncated());
  EXPECT_EQ(d.ShapeCount(0), kMaxShapes);
  EXPECT_EQ(d.arg_count(), 1);  // no room left for [5]: skipped too
  ASSERT_TRUE(d.Parse("[[1],[2]]"));
  EXPECT_FALSE(d.truncated());
}

TEST(StringArray, TypesAndConcreteInputs) {
  StringArray a;
  ASSERT_TRUE(a.Parse(R"(["", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"])"));
  EXPECT_EQ(a.size(), 8);
  EXPECT_EQ(a[2], "[1, 1]");
  EXPECT_EQ(a[5], "False");
  EXPECT_EQ(a[8], "");
  ASSERT_TRUE(a.Parse(R"(["c10::BFloat16","long int",""])"));
  EXPECT_EQ(a[1], "long int");
  EXPECT_FALSE(a.Parse(R"(["a", 1])"));
  EXPECT_FALSE(a.Parse(R"(["unterminated])"));
}

TEST(ConcreteValues, IntListsIntsBools) {
  std::array<std::int64_t, 3> out{};
  EXPECT_EQ(ParseIntList("[2, 2]", out), 2);
  EXPECT_EQ(out[1], 2);
  EXPECT_EQ(ParseIntList("[]", out), 0);
  EXPECT_EQ(ParseIntList("[-1]", out), 1);
  EXPECT_EQ(out[0], -1);
  EXPECT_FALSE(ParseIntList("[True, False]", out).has_value());
  EXPECT_EQ(ParseInt("15"), 15);
  EXPECT_FALSE(ParseInt("0.125").has_value());
  EXPECT_EQ(ParseBool("True"), true);
  EXPECT_EQ(ParseBool("False"), false);
  EXPECT_FALSE(ParseBool("1").has_value());
  EXPECT_EQ(Elements(std::array<std::int64_t, 3>{2, 3, 4}), 24);
}

}  // namespace
}  // namespace plasmient::roofline
