#include "job/analyze_job.h"

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

namespace plasmient::job {
namespace {

std::size_t Machine() { return std::max(1u, std::thread::hardware_concurrency()); }

TEST(CoresEach, SplitsTheCoresAtLeastOneEach) {
  EXPECT_EQ(CoresEach(4, 16), 4u);
  EXPECT_EQ(CoresEach(3, 16), 5u);
  EXPECT_EQ(CoresEach(64, 16), 1u);
  EXPECT_EQ(CoresEach(0, 16), 16u);
  EXPECT_EQ(CoresEach(1), Machine());
}

// The threads of a job's reads never multiply past the cores: N ranks at once parse on
// cores / N threads each; a lone trace keeps the reader's default (one per core).
TEST(ParseThreadsEach, RanksAtOnceShareTheCores) {
  verdict::AnalyzeOptions o;
  o.workers = 4 * Machine();
  EXPECT_EQ(ParseThreadsEach(o, 1), 0u) << "one input: one trace at once, every core";
  EXPECT_EQ(ParseThreadsEach(o, 1000), Machine() > 1 ? 1u : 0u);
  o.workers = 2;
  EXPECT_EQ(ParseThreadsEach(o, 1000), Machine() > 1 ? Machine() / 2 : 0u);
  // serve's share of the node for one worker of two.
  o.workers = 1;
  o.cores = CoresEach(2);
  EXPECT_EQ(ParseThreadsEach(o, 1), Machine() > 1 ? Machine() / 2 : 0u);
}

}  // namespace
}  // namespace plasmient::job
