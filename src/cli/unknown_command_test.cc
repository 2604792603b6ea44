#include "cli/unknown_command.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace plasmient::cli {
namespace {

TEST(EditDistance, CountsEachEditOnceAndSwapsAsOne) {
  EXPECT_EQ(EditDistance("analyze", "analyze"), 0u);
  EXPECT_EQ(EditDistance("analyse", "analyze"), 1u);  // substitute
  EXPECT_EQ(EditDistance("anlyze", "analyze"), 1u);   // insert
  EXPECT_EQ(EditDistance("anaylze", "analyze"), 1u);  // swap of neighbours
  EXPECT_EQ(EditDistance("ANALYZE", "analyze"), 0u);  // case
  EXPECT_EQ(EditDistance("", "diff"), 4u);
  EXPECT_EQ(EditDistance("peek", "peaks"), 2u);
}

TEST(NearestName, NearEnoughOrNone) {
  const std::vector<std::string> names{"analyze", "peaks", "diff", "whatif", "explain", "bill", "run"};
  EXPECT_EQ(NearestName("analyse", names), "analyze");
  EXPECT_EQ(NearestName("peek", names), "peaks");
  EXPECT_EQ(NearestName("what-if", names), "whatif");
  EXPECT_EQ(NearestName("rn", names), "run");
  EXPECT_FALSE(NearestName("help", names));  // 3 edits from bill: more than one in three letters
  EXPECT_FALSE(NearestName("xyz", names));
}

TEST(UnknownCommand, NamesTheCommandAndTheNearestOne) {
  CLI::App app("test", "plasmient");
  app.add_subcommand("analyze", "");
  app.add_subcommand("diff", "");
  auto argv = [](auto&&... args) {
    return std::array<const char*, sizeof...(args) + 1>{"plasmient", args...};
  };
  auto typo = argv("analyse", "t.json");
  EXPECT_EQ(UnknownCommand(app, typo.size(), typo.data()),
            "unknown command 'analyse'; did you mean 'analyze'?");
  auto far = argv("--version", "frobnicate");
  EXPECT_EQ(UnknownCommand(app, far.size(), far.data()),
            "unknown command 'frobnicate'; plasmient --help lists the commands");
  auto known = argv("diff", "a", "b");
  EXPECT_FALSE(UnknownCommand(app, known.size(), known.data()));
  auto none = argv("--help");
  EXPECT_FALSE(UnknownCommand(app, none.size(), none.data()));
}

}  // namespace
}  // namespace plasmient::cli
