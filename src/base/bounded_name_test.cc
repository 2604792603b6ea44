#include "base/bounded_name.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace plasmient {
namespace {

TEST(BoundedNameTest, ShortValidNamesAreUnchanged) {
  EXPECT_TRUE(IsBoundedName("ampere_sgemm_128x64_nn"));
  EXPECT_EQ(BoundName("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(BoundName("aten::matmul \xC3\xA9"), "aten::matmul \xC3\xA9");
  EXPECT_TRUE(IsBoundedName(std::string(kMaxNameBytes, 'k')));
}

TEST(BoundedNameTest, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_FALSE(
      IsBoundedName("bad\xFF"
                    "name"));
  EXPECT_EQ(BoundName("bad\xFF"
                      "name\xC3"),
            "bad\xEF\xBF\xBDname\xEF\xBF\xBD");
  EXPECT_EQ(BoundName("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate, byte by byte
}

// A 6 MiB name (the hostile probe's) comes out at most kMaxNameBytes, valid, and distinct from
// another that shares its first bytes.
TEST(BoundedNameTest, LongNamesAreCutWithAStableHash) {
  std::string a(6 << 20, 'x'), b = a;
  b.back() = 'y';
  std::string ca = BoundName(a), cb = BoundName(b);
  EXPECT_LE(ca.size(), kMaxNameBytes);
  EXPECT_TRUE(IsBoundedName(ca));
  EXPECT_NE(ca, cb);
  EXPECT_EQ(ca, BoundName(a));
  EXPECT_TRUE(ca.starts_with(std::string(kMaxNameBytes - 32, 'x')));
  EXPECT_EQ(ca.substr(ca.size() - 17, 1), "#");
  // The cut never splits a character: 2-byte characters up to and past the cap.
  std::string accents;
  for (std::size_t i = 0; i < kMaxNameBytes; ++i) accents += "\xC3\xA9";
  std::string cut = BoundName(accents);
  EXPECT_LE(cut.size(), kMaxNameBytes);
  EXPECT_TRUE(IsBoundedName(cut));
}

TEST(BoundedNameTest, BoundNameToCutsTheShortFormAtACharacterAndAppendsTheHash) {
  EXPECT_EQ(BoundNameTo("short", 96, "s"), "short");
  std::string name(200, 'k');
  std::string cut = BoundNameTo(name, 96, name);
  EXPECT_EQ(cut.size(), 96u);
  EXPECT_EQ(cut, std::string(76, 'k') + fmt::format("\xE2\x80\xA6#{:016x}", NameHash(name)));
  std::string accents;
  for (int i = 0; i < 60; ++i) accents += "\xC3\xA9";
  std::string a = BoundNameTo(accents, 96, accents);
  EXPECT_LE(a.size(), 96u);
  EXPECT_TRUE(IsBoundedName(a));
  EXPECT_NE(BoundNameTo("a\xFF", 96, "a"), "a\xFF");  // invalid UTF-8 is never kept as is
}

// A label of a 64 KiB marker line is cut to kMaxLabelBytes, stably; a short one is kept.
TEST(BoundedNameTest, LabelsAreBoundedToAFewHundredBytes) {
  EXPECT_EQ(BoundLabel("vision"), "vision");
  std::string long_value(64 << 10, 't');
  std::string cut = BoundLabel(long_value);
  EXPECT_EQ(cut.size(), kMaxLabelBytes);
  EXPECT_EQ(cut, BoundLabel(long_value));
  EXPECT_TRUE(cut.ends_with(fmt::format("#{:016x}", NameHash(long_value))));
  const std::string bad =
      "t\xED\xA0\x80"
      "eam";  // a surrogate: three invalid bytes
  EXPECT_EQ(BoundLabel(bad),
            "t\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "eam\xE2\x80\xA6#" +
                fmt::format("{:016x}", NameHash(bad)));
}

// A name with a newline cannot start a forged log line, nor an escape sequence reach a terminal.
TEST(BoundedNameTest, EscapeForLogWritesControlAndInvalidBytesAsHex) {
  EXPECT_EQ(EscapeForLog("rank0.json"), "rank0.json");
  EXPECT_EQ(EscapeForLog("a\nplasmient serve: recorded x"), "a\\x0aplasmient serve: recorded x");
  EXPECT_EQ(EscapeForLog("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
  EXPECT_EQ(EscapeForLog("caf\xC3\xA9 \xFF"), "caf\xC3\xA9 \\xff");
  EXPECT_EQ(EscapeForLog("back\\slash"), "back\\\\slash");
}

}  // namespace
}  // namespace plasmient
