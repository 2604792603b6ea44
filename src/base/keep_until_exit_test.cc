#include "base/keep_until_exit.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace plasmient {
namespace {

struct CountsDestruction {
  int* destroyed;
  std::vector<std::string> payload;
  CountsDestruction(int* d, std::vector<std::string> p) : destroyed(d), payload(std::move(p)) {}
  CountsDestruction(CountsDestruction&& o) noexcept : destroyed(o.destroyed), payload(std::move(o.payload)) {
    o.destroyed = nullptr;  // a moved-from shell counts nothing
  }
  ~CountsDestruction() {
    if (destroyed != nullptr) ++*destroyed;
  }
};

TEST(KeepUntilExit, TheKeptValueIsNeverDestroyedAndTheSourceIsMovedFrom) {
  int destroyed = 0;
  {
    CountsDestruction value(&destroyed, {"a", "b", "c"});
    KeepUntilExit(std::move(value));
    EXPECT_TRUE(value.payload.empty());  // moved out, not copied
    EXPECT_EQ(value.destroyed, nullptr);
  }
  EXPECT_EQ(destroyed, 0);  // the shell went out of scope; the kept value lives on
}

}  // namespace
}  // namespace plasmient
