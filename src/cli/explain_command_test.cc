#include "cli/explain_command.h"

#include <gtest/gtest.h>

namespace plasmient::cli {
namespace {

using verdict::InstantSpec;

TEST(ParseInstant, TimesTakeTheirUnit) {
  EXPECT_EQ(ParseInstant("6.2ms")->offset_ns, 6'200'000);
  EXPECT_EQ(ParseInstant("6200us")->offset_ns, 6'200'000);
  EXPECT_EQ(ParseInstant("6200µs")->offset_ns, 6'200'000);
  EXPECT_EQ(ParseInstant("17ns")->offset_ns, 17);
  EXPECT_EQ(ParseInstant("0.5s")->offset_ns, 500'000'000);
  EXPECT_EQ(ParseInstant("6.2ms")->kind, InstantSpec::Kind::kOffset);
}

TEST(ParseInstant, StepsAndWorst) {
  auto s = ParseInstant("step:5+1.5ms");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, InstantSpec::Kind::kStep);
  EXPECT_EQ(s->step, 5);
  EXPECT_EQ(s->offset_ns, 1'500'000);
  EXPECT_EQ(ParseInstant("step:7")->offset_ns, 0);
  EXPECT_EQ(ParseInstant("worst")->kind, InstantSpec::Kind::kWorst);
}

TEST(ParseInstant, BadTextSaysWhatItTakes) {
  for (const char* bad :
       {"12", "ms", "6.2 ms", "6.2xs", "step:x+1ms", "step:", "step:3+2", "-1ms", "1e999ms"}) {
    auto s = ParseInstant(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().message.find("--at"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace plasmient::cli
