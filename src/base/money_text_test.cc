#include "base/money_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace plasmient {
namespace {

TEST(Money, ThousandsSeparatorsAndCents) {
  EXPECT_EQ(Money(11167948.8), "$11,167,948.80");
  EXPECT_EQ(Money(4076301312), "$4,076,301,312.00");
  EXPECT_EQ(Money(999.995), "$1,000.00");  // rounded to the cent before grouping
  EXPECT_EQ(Money(100), "$100.00");
  EXPECT_EQ(Money(2.53), "$2.53");
  EXPECT_EQ(Money(-1234.5), "-$1,234.50");
}

TEST(Money, BelowACentIsSaidSo) {
  EXPECT_EQ(Money(0.004), "<$0.01");
  EXPECT_EQ(Money(0.00001), "<$0.01");
  EXPECT_EQ(Money(0.01), "$0.01");
  EXPECT_EQ(Money(0), "$0.00");
  EXPECT_EQ(Money(-0.001), "$0.00");  // no sign on what rounds to nothing
  EXPECT_EQ(Money(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

}  // namespace
}  // namespace plasmient
