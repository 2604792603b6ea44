#include "verdict/timeline.h"

#include <gtest/gtest.h>

namespace plasmient::verdict {
namespace {

TEST(MergeBuckets, EachMergeIsTheTimeWeightedMeanOfItsBuckets) {
  // Three 1 ms buckets and one of 3 ms, which weighs three times as much.
  const std::vector<TimelineBucket> buckets = {{0, 1'000'000, 1.0, 0.5},
                                               {1'000'000, 2'000'000, 0.0, 0.0},
                                               {2'000'000, 3'000'000, 0.5, 0.25},
                                               {3'000'000, 6'000'000, 1.0, 0.75}};
  auto merged = MergeBuckets(buckets, 2);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].start_ns, 0);
  EXPECT_EQ(merged[0].end_ns, 2'000'000);
  EXPECT_DOUBLE_EQ(merged[0].utilization, 0.5);
  EXPECT_DOUBLE_EQ(merged[0].achieved, 0.25);
  EXPECT_EQ(merged[1].start_ns, 2'000'000);
  EXPECT_EQ(merged[1].end_ns, 6'000'000);
  EXPECT_DOUBLE_EQ(merged[1].utilization, (0.5 + 3 * 1.0) / 4);
  EXPECT_DOUBLE_EQ(merged[1].achieved, (0.25 + 3 * 0.75) / 4);

  merged = MergeBuckets(buckets, 3);  // the last merge holds what is left
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_DOUBLE_EQ(merged[0].utilization, 0.5);
  EXPECT_EQ(merged[1].start_ns, 3'000'000);
  EXPECT_DOUBLE_EQ(merged[1].achieved, 0.75);

  EXPECT_EQ(MergeBuckets(buckets, 1).size(), 4u);
  EXPECT_TRUE(MergeBuckets({}, 5).empty());
  // A bucket of no length has no weight: the merge reads 0, not a division by zero.
  merged = MergeBuckets({{7, 7, 0.9, 0.9}}, 1);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].utilization, 0);
}

}  // namespace
}  // namespace plasmient::verdict
