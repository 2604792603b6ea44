#include "cluster/job_identity.h"

#include <gtest/gtest.h>

namespace plasmient::cluster {
namespace {

using verdict::RankVerdict;

constexpr TimeNs kEpoch2023 = 1'682'725'898'000'000'000;

// Rank `rank` of an 8-rank NCCL job on H100s: `n` all-reduces of `bytes` on group "0" in step 5.
RankVerdict Rank(std::string path, std::int64_t rank, TimeNs start_ns, std::int64_t bytes = 1 << 20,
                 int n = 4) {
  RankVerdict r;
  r.path = std::move(path);
  r.rank = rank;
  r.world_size = 8;
  r.backend = "nccl";
  r.pg_config =
      R"([{"pg_name":"0","pg_desc":"default_pg","backend_config":"cuda:nccl","pg_size":8,"ranks":[]}])";
  r.run.start_ns = start_ns;
  r.run.end_ns = start_ns + 15 * kNsPerMs;
  r.device = {.name = "NVIDIA H100 SXM 80GB", .key = "h100_sxm", .source = "trace: name"};
  for (int k = 0; k < n; ++k) {
    join::CollectiveInstance c;
    c.group = "0";
    c.group_size = 8;
    c.seq = k;
    c.kind = join::CollectiveKind::kAllReduce;
    c.name = "allreduce";
    c.bytes = bytes;
    c.step = 5;
    c.start_ns = start_ns + k * 3 * kNsPerMs;
    c.end_ns = c.start_ns + kNsPerMs;
    r.collectives.push_back(c);
  }
  return r;
}

TEST(JobIdentity, AClockHoursOffIsStillOneJob) {
  // Rank 1's host has no clock sync: its trace reads 3 h later, its collectives match one for one.
  const TimeNs hours = 3 * 3600 * kNsPerS;
  EXPECT_TRUE(NotOneJob({Rank("r0.json", 0, kEpoch2023), Rank("r1.json", 1, kEpoch2023 + hours)}).empty());
}

TEST(JobIdentity, NamesEachDisagreement) {
  auto gloo = Rank("b.json", 1, kEpoch2023);
  gloo.backend = "gloo";
  auto why = NotOneJob({Rank("a.json", 0, kEpoch2023), gloo});
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0], "backend nccl in a.json but gloo in b.json");

  auto groups = Rank("b.json", 1, kEpoch2023);
  groups.pg_config = R"([{"pg_name":"0","pg_size":16}])";
  why = NotOneJob({Rank("a.json", 0, kEpoch2023), groups});
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0], "process group '0' has 8 ranks in a.json but 16 in b.json");

  why = NotOneJob({Rank("a.json", 0, kEpoch2023), Rank("b.json", 1, kEpoch2023, 3 << 20)});
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0],
            "collective signature: 4 of 4 matched collectives of b.json move other sizes than a.json's "
            "(all_reduce 0 of group '0' is 3145728 B on rank 1 but 1048576 B on rank 0)");

  auto gather = Rank("b.json", 1, kEpoch2023);
  for (auto& c : gather.collectives) c.kind = join::CollectiveKind::kAllGather;
  why = NotOneJob({Rank("a.json", 0, kEpoch2023), gather});
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0], "collective signature: group '0' runs all_gather in b.json but not in a.json");
}

TEST(JobIdentity, OtherStepsAreNotADisagreement) {
  auto later = Rank("b.json", 1, kEpoch2023, 3 << 20);
  for (auto& c : later.collectives) c.step = 9;
  later.collectives[0].kind = join::CollectiveKind::kAllGather;
  EXPECT_TRUE(NotOneJob({Rank("a.json", 0, kEpoch2023), later}).empty());
}

TEST(JobIdentity, ReadsKinetoProcessGroups) {
  auto groups = ProcessGroupSizes(R"([{"pg_name":"0","pg_size":4},{"pg_name":"7","ranks":[0,2]},{"x":1}])");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::pair<std::string, std::int64_t>{"0", 4}));
  EXPECT_EQ(groups[1], (std::pair<std::string, std::int64_t>{"7", 2}));
  EXPECT_TRUE(ProcessGroupSizes("not json").empty());
  EXPECT_TRUE(ProcessGroupSizes("").empty());
}

}  // namespace
}  // namespace plasmient::cluster
