#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace plasmient
