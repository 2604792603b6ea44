#include "job/bill.h"

#include <gtest/gtest.h>

namespace plasmient::job {
namespace {

TEST(BillTest, WhatIfArithmeticIsExact) {
  auto b = RatesFor(8, 2.5, 0.25, 0.5);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->spend_per_hour, 20);
  EXPECT_EQ(b->spend_per_day, 480);
  EXPECT_EQ(b->spend_per_year, 175200);
  EXPECT_EQ(b->computed_per_day, 120);
  EXPECT_EQ(b->paid_never_computed_per_day, 360);
  EXPECT_EQ(b->paid_never_computed_per_year, 131400);
  EXPECT_EQ(b->addressable_per_day, 240);
  EXPECT_EQ(b->addressable_per_year, 87600);
  EXPECT_EQ(b->gpus_at_target, 4);
}

TEST(BillTest, NothingAddressableAboveTarget) {
  auto b = RatesFor(4, 2, 0.5, 0.25);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->addressable_per_day, 0);
  EXPECT_EQ(b->gpus_at_target, 4);
  EXPECT_EQ(b->paid_never_computed_per_day, 96);
}

TEST(BillTest, RejectsOutOfRange) {
  EXPECT_FALSE(RatesFor(-1, 2, 0.3, 0.4));
  EXPECT_FALSE(RatesFor(1, -2, 0.3, 0.4));
  EXPECT_FALSE(RatesFor(1, 2, 1.5, 0.4));
  EXPECT_FALSE(RatesFor(1, 2, 0.3, 0));
  EXPECT_FALSE(RatesFor(1, 2, 0.3, 1.1));
}

TEST(BillTest, FormatNamesEveryFigure) {
  std::string text = FormatBill(*RatesFor(8, 2.5, 0.25, 0.5));
  EXPECT_NE(text.find("8 GPUs at $2.50/GPU-hour"), std::string::npos);
  EXPECT_NE(text.find(" $480.00 "), std::string::npos);
  EXPECT_NE(text.find(" $175,200.00\n"), std::string::npos);  // spend per year
  EXPECT_NE(text.find(" $87,600.00\n"), std::string::npos);
  EXPECT_NE(text.find("needs 4.00 GPUs"), std::string::npos);
}

}  // namespace
}  // namespace plasmient::job
