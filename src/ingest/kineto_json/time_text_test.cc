#include "ingest/kineto_json/time_text.h"

#include <gtest/gtest.h>

#include <string>

#include "ingest/kineto_json/json_text.h"

namespace plasmient::ingest {
namespace {

std::int64_t Ns(std::string_view text) {
  std::int64_t ns = -777;
  EXPECT_TRUE(ParseMicrosToNs(text, &ns)) << text;
  return ns;
}

TEST(TimeTextTest, IntegersAndFractionsAreExact) {
  EXPECT_EQ(Ns("0"), 0);
  EXPECT_EQ(Ns("12"), 12'000);
  EXPECT_EQ(Ns("1712195495406752.8"), 1712195495406752800);
  EXPECT_EQ(Ns("1712195495406752.875"), 1712195495406752875);
  EXPECT_EQ(Ns("4203669604595.407"), 4203669604595407);
  EXPECT_EQ(Ns("0.001"), 1);
  EXPECT_EQ(Ns("0.005"), 5);
  EXPECT_EQ(Ns("340.024 "), 340024);
  EXPECT_EQ(Ns("-3.5"), -3500);
  EXPECT_EQ(Ns("3367344.0"), 3367344000);
}

TEST(TimeTextTest, ExtraDigitsRoundAndExponentsShift) {
  EXPECT_EQ(Ns("1.0004"), 1000);
  EXPECT_EQ(Ns("1.0005"), 1001);
  EXPECT_EQ(Ns("1.5e3"), 1'500'000);
  EXPECT_EQ(Ns("25E-3"), 25);
  EXPECT_EQ(Ns("1.712195495406752e15"), 1712195495406752000);
}

// Timestamps of every length either side of the short form's limits (15 whole digits, three
// decimals), against arithmetic done here: the same nanoseconds whichever parse reads them.
TEST(TimeTextTest, EveryLengthOfWholeAndDecimalDigitsIsExact) {
  for (int whole_digits = 1; whole_digits <= 16; ++whole_digits) {  // 16: still within int64 in ns
    std::int64_t whole = 0;
    std::string whole_text;
    for (int d = 0; d < whole_digits; ++d) {
      int digit = (d * 7 + whole_digits) % 10;
      whole = whole * 10 + digit;
      whole_text.push_back(static_cast<char>('0' + digit));
    }
    for (int decimals = 0; decimals <= 6; ++decimals) {
      std::string text = whole_text;
      std::int64_t micro_digits = 0;  // the decimals as an integer
      if (decimals > 0) text.push_back('.');
      for (int d = 0; d < decimals; ++d) {
        int digit = (d * 3 + 5) % 10;
        micro_digits = micro_digits * 10 + digit;
        text.push_back(static_cast<char>('0' + digit));
      }
      std::int64_t scale = 1;
      for (int d = 0; d < decimals; ++d) scale *= 10;
      // ns = round(whole.decimals * 1000), half up.
      std::int64_t ns = whole * 1000 + (micro_digits * 1000 + scale / 2) / scale;
      if (decimals <= 3) ns = whole * 1000 + micro_digits * 1000 / scale;
      EXPECT_EQ(Ns(text), ns) << text;
      EXPECT_EQ(Ns("-" + text), -ns) << text;
    }
  }
  EXPECT_EQ(Ns("1."), 1000);
  EXPECT_EQ(Ns("000000000000000000012.5"), 12500);
}

TEST(TimeTextTest, RejectsNonNumbersAndOverflow) {
  std::int64_t ns = 0;
  EXPECT_FALSE(ParseMicrosToNs("", &ns));
  EXPECT_FALSE(ParseMicrosToNs("\"12\"", &ns));
  EXPECT_FALSE(ParseMicrosToNs("abc", &ns));
  EXPECT_FALSE(ParseMicrosToNs("1e", &ns));
  EXPECT_FALSE(ParseMicrosToNs("12x", &ns));
  EXPECT_FALSE(ParseMicrosToNs("99999999999999999999", &ns));  // > int64 in ns
  EXPECT_FALSE(ParseMicrosToNs("1e400", &ns));
}

TEST(TimeTextTest, IntegersAndMinify) {
  std::int64_t v = 0;
  EXPECT_TRUE(ParseInteger("42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(ParseInteger("-7.0", &v));
  EXPECT_EQ(v, -7);
  EXPECT_FALSE(ParseInteger("7.5", &v));
  EXPECT_FALSE(ParseInteger("0x0", &v));
  EXPECT_TRUE(ParseNumberAsInteger("7.9", &v));
  EXPECT_EQ(v, 7);
  std::string scratch;
  EXPECT_EQ(MinifyJson("[[8, 512], [\"a b\", 1]] ", &scratch), "[[8,512],[\"a b\",1]]");
  EXPECT_EQ(MinifyJson("[1,2]", &scratch), "[1,2]");
}

}  // namespace
}  // namespace plasmient::ingest
