#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace plasmient {
namespace {

TEST(StringPool, InternsOnceAndKeepsViewsStableAcrossGrowth) {
  StringPool pool;
  StringId a = pool.Intern("ampere_sgemm_128x64_nn");
  EXPECT_EQ(pool.Intern("ampere_sgemm_128x64_nn"), a);
  std::string_view before = pool.Get(a);
  for (int i = 0; i < 100000; ++i) pool.Intern("name_" + std::to_string(i));
  EXPECT_EQ(pool.Get(a).data(), before.data());
  EXPECT_EQ(pool.Get(a), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(pool.size(), 100002u);
}

TEST(StringPool, EmptyStringIsIdZeroAndFindDoesNotIntern) {
  StringPool pool;
  EXPECT_EQ(pool.Intern("").value, 0u);
  EXPECT_TRUE(pool.Find("missing").empty());
  EXPECT_EQ(pool.size(), 1u);
  std::string big(3 << 20, 'x');  // larger than a block
  EXPECT_EQ(pool.Get(pool.Intern(big)).size(), big.size());
}

// Every length the hash treats apart (0-3, 4-7, whole words, the four-lane stride) and strings
// that differ in one byte only, anywhere: each is its own id, and finds itself again.
TEST(StringPool, StringsDifferingInOneByteAtAnyLengthAreDistinct) {
  StringPool pool;
  std::vector<std::string> texts;
  for (std::size_t n = 1; n <= 70; ++n) {
    std::string base(n, 'k');
    texts.push_back(base);
    for (std::size_t at = 0; at < n; ++at) {
      std::string other = base;
      other[at] = 'q';
      texts.push_back(other);
    }
  }
  std::vector<StringId> ids;
  for (const std::string& text : texts) ids.push_back(pool.Intern(text));
  EXPECT_EQ(pool.size(), texts.size() + 1);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(pool.Find(texts[i]), ids[i]) << texts[i];
    EXPECT_EQ(pool.Get(ids[i]), texts[i]);
  }
}

}  // namespace
}  // namespace plasmient
