// Two ranks' native traces (what the agent writes) through the reader, the rank analysis and the
// cluster match: NCCL's seqNumber counts per collective type, so an all-reduce and an all-gather
// of one communicator share sequence numbers, and each must meet its own kind on the other rank.
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/cluster_match.h"
#include "ingest/native/native_reader.h"
#include "ingest/native/native_test_file.h"
#include "verdict/analyze.h"

namespace plasmient::cluster {
namespace {

using ingest::native::testing::Collective;
using ingest::native::testing::FileMaker;
using ingest::native::testing::Kernel;
using ingest::native::testing::kPid;
using ingest::native::testing::Launch;

constexpr std::uint64_t kComm = 0xc0ffee;
constexpr int kRounds = 3;
constexpr std::uint64_t kMsNs = 1'000'000;

// Rank `rank`, its clock `offset` ahead: per round an all-reduce and an all-gather, seq 0, 1, 2
// each, launched then enqueued on thread 9 the way NCCL does it. `skip` collectives at the start
// are not in the file (its window opened later).
std::vector<std::uint8_t> RankFile(int rank, std::uint64_t offset, int skip) {
  FileMaker f;
  f.String(2, "cuLaunchKernelEx");
  f.String(3, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  f.String(4, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  f.String(5, "AllReduce");
  f.String(6, "AllGather");
  f.String(7, "ncclFloat32");
  wire::ProcessRecord p{};
  p.header = wire::HeaderFor<wire::ProcessRecord>(wire::RecordKind::kProcess);
  p.pid = kPid;
  p.rank = rank;
  p.local_rank = rank;
  p.world_size = 2;
  f.Add(p);
  std::uint32_t corr = 1;
  for (int i = 0; i < kRounds; ++i) {
    for (int kind = 0; kind < 2; ++kind) {
      if (2 * i + kind < skip) continue;
      std::uint64_t t = offset + 10 * kMsNs + static_cast<std::uint64_t>(i) * 10 * kMsNs +
                        static_cast<std::uint64_t>(kind) * 3 * kMsNs;
      f.Add(Launch(t, corr, 9));
      f.Add(Kernel(t + 20'000, t + kMsNs, corr, kind == 0 ? 3 : 4));
      wire::CollectiveRecord c =
          Collective(t + 10'000, t + kMsNs, kComm, static_cast<std::uint64_t>(i), kind == 0 ? 5 : 6, 9);
      c.rank = rank;
      c.nranks = 2;
      c.count = 1024;
      c.bytes = 4096;
      c.dtype_id = 7;
      f.Add(c);
      ++corr;
    }
  }
  f.Cut(/*last=*/true);
  return f.file();
}

// Rank 1's file starts after the first all-reduce: that one is unmatched, and every other
// collective meets its own kind. Keyed on (communicator, seq) alone, rank 0's all-reduce 0 would
// meet rank 1's all-gather 0.
TEST(ClusterNativeTest, NcclSeqMatchesPerCollectiveTypeAcrossRanks) {
  std::vector<RankCollectives> ranks;
  for (int r = 0; r < 2; ++r) {
    auto bytes = RankFile(r, static_cast<std::uint64_t>(r) * 3 * kMsNs, r);
    auto trace = ingest::native::ReadNativeBytes(bytes.data(), bytes.size(), "rank" + std::to_string(r));
    ASSERT_TRUE(trace) << trace.error().message;
    auto verdict = verdict::AnalyzeRank(*trace, {});
    ASSERT_TRUE(verdict) << verdict.error().message;
    ASSERT_EQ(verdict->collectives.size(), 2u * kRounds - static_cast<std::size_t>(r));
    ranks.push_back({r, verdict->collectives, verdict->run.start_ns, verdict->run.end_ns});
  }
  std::vector<const RankCollectives*> ptrs = {&ranks[0], &ranks[1]};
  MatchSet set = MatchCollectives(ptrs);
  EXPECT_EQ(set.unmatched, 1);
  ASSERT_EQ(set.matches.size(), 2u * kRounds);
  std::set<std::tuple<CollectiveKind, std::int64_t>> seen;
  for (const auto& m : set.matches) {
    EXPECT_EQ(m.group, "0000000000c0ffee");
    EXPECT_GE(m.seq, 0) << "matched by NCCL's seqNumber";
    seen.insert({m.kind, m.seq});
    for (const auto& member : m.members) {
      const auto& item =
          ranks[static_cast<std::size_t>(member.rank_index)].items[static_cast<std::size_t>(member.item)];
      EXPECT_EQ(ParseCollectiveKind(item.kind), m.kind);
      EXPECT_EQ(item.seq, m.seq);
    }
    bool first_all_reduce = m.kind == CollectiveKind::kAllReduce && m.seq == 0;
    EXPECT_EQ(m.complete(), !first_all_reduce) << CollectiveKindName(m.kind) << " " << m.seq;
  }
  EXPECT_EQ(seen.size(), 2u * kRounds) << "each (type, seq) is one collective";
  auto result = AnalyzeCluster(ranks, {});
  EXPECT_EQ(result.matched, 2 * kRounds - 1);
  EXPECT_NEAR(static_cast<double>(result.ranks[1].clock_offset_ns), 3.0 * kMsNs, 1e3);
}

}  // namespace
}  // namespace plasmient::cluster
