#include "ingest/kineto_json/time_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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

// Integers of every length up to int64's limits, read 8 digits at a time where they can be: the
// same value as digit by digit, and a non-digit anywhere in a group of 8 still stops the number.
TEST(TimeTextTest, IntegersOfEveryLengthAndOverflow) {
  std::uint64_t expected = 0;
  std::string text;
  for (int digits = 1; digits <= 19; ++digits) {
    int digit = (digits * 7 + 3) % 10;
    expected = expected * 10 + static_cast<std::uint64_t>(digit);
    text.push_back(static_cast<char>('0' + digit));
    std::int64_t v = -1;
    ASSERT_TRUE(ParseInteger(text, &v)) << text;
    EXPECT_EQ(v, static_cast<std::int64_t>(expected)) << text;
    ASSERT_TRUE(ParseInteger("-" + text, &v)) << text;
    EXPECT_EQ(v, -static_cast<std::int64_t>(expected)) << text;
    for (std::size_t at = 0; at < text.size(); ++at) {
      for (char bad : {'/', ':', ' ', 'a', '\x80'}) {
        std::string broken = text;
        broken[at] = bad;
        if (bad == ' ' && at == broken.size() - 1) continue;  // trailing whitespace is allowed
        EXPECT_FALSE(ParseInteger(broken, &v)) << broken;
        EXPECT_FALSE(ParseMicrosToNs(broken + ".5", &v)) << broken;
      }
    }
  }
  std::int64_t v = 0;
  EXPECT_TRUE(ParseInteger("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<std::int64_t>::max());
  EXPECT_FALSE(ParseInteger("9223372036854775808", &v));
  EXPECT_FALSE(ParseInteger("18446744073709551616", &v));
  EXPECT_FALSE(ParseInteger("99999999999999999999999", &v));
  EXPECT_TRUE(ParseInteger("12345678.000", &v));
  EXPECT_EQ(v, 12345678);
}

TEST(TimeTextTest, MinifyKeepsStringsAsWritten) {
  std::string scratch;
  EXPECT_EQ(MinifyJson("[ \"a \\\" b\" , \"\\\\\", 2 ]", &scratch), "[\"a \\\" b\",\"\\\\\",2]");
  EXPECT_EQ(MinifyJson("{\n  \"k\": [1,\t2],\r\n  \"s\": \"x  y\"\n}\n", &scratch),
            "{\"k\":[1,2],\"s\":\"x  y\"}");
  EXPECT_EQ(MinifyJson("[\"unterminated  \\", &scratch), "[\"unterminated  \\");
  EXPECT_EQ(MinifyJson("[\"a\", 1, [2, 3]]", &scratch), "[\"a\",1,[2,3]]");
  EXPECT_EQ(MinifyJson("[11111111, 22222222, 33333333, 44444444]", &scratch),
            "[11111111,22222222,33333333,44444444]");
}

TEST(TimeTextTest, ShortDigitsFromPaddedTextAreExactAndStopAtNonDigits) {
  const std::string padded = "9081726354,\"x\":[1, 2]}]                ";  // bytes after every token
  for (std::size_t n = 1; n <= 10; ++n) {
    std::int64_t v = -1, expected = -1;
    std::string_view token = std::string_view(padded).substr(0, n);
    ASSERT_TRUE(ParseInteger(token, &expected));
    EXPECT_EQ(ParseShortDigitsPadded(token, &v), n <= 8) << token;
    if (n <= 8) {
      EXPECT_EQ(v, expected) << token;
    }
  }
  std::int64_t v = -1;
  EXPECT_FALSE(ParseShortDigitsPadded(std::string_view(padded).substr(0, 0), &v));
  for (std::string_view bad : {"12,4", "-5", "1.5", "1e3", "7 ", "0x10", "12:3", "/9"}) {
    std::string text = std::string(bad) + "        ";
    EXPECT_FALSE(ParseShortDigitsPadded(std::string_view(text).substr(0, bad.size()), &v)) << bad;
  }
  std::string zeros = "00000042        ";
  EXPECT_TRUE(ParseShortDigitsPadded(std::string_view(zeros).substr(0, 8), &v));
  EXPECT_EQ(v, 42);
}

// The byte-at-a-time minifier this file's SIMD one replaced: the same text for any input.
std::string MinifyReference(std::string_view raw) {
  auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!raw.empty() && space(raw.back())) raw.remove_suffix(1);
  std::string out;
  bool in_string = false, escape = false;
  for (char c : raw) {
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (space(c)) {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

TEST(TimeTextTest, MinifyMatchesByteAtATimeOnAnyText) {
  const std::string alphabet = " \n\r\t\"\\a1,[]{}:";
  std::uint64_t seed = 12345;
  std::string scratch;
  for (int round = 0; round < 20000; ++round) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    std::size_t length = (seed >> 33) % 90;
    std::string text;
    for (std::size_t i = 0; i < length; ++i) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      // Mostly digits and commas, as shapes are; every byte kind at every block position.
      std::size_t pick = (seed >> 33) % (alphabet.size() * 2);
      text.push_back(pick < alphabet.size() ? alphabet[pick] : "1,"[pick % 2]);
    }
    ASSERT_EQ(MinifyJson(text, &scratch), MinifyReference(text)) << text;
  }
}

}  // namespace
}  // namespace plasmient::ingest
