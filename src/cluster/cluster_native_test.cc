// Two ranks' native traces (what the agent writes) through the reader, the rank analysis and the
// cluster match: NCCL's seqNumber counts per collective type, so an all-reduce and an all-gather
// of one communicator share sequence numbers, and each must meet its own kind on the other rank.
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/cluster_match.h"
#include "ingest/native/native_reader.h"
#include "ingest/testing/native_test_file.h"
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

wire::ProcessRecord Process(int rank, int world_size) {
  wire::ProcessRecord p{};
  p.header = wire::HeaderFor<wire::ProcessRecord>(wire::RecordKind::kProcess);
  p.pid = kPid;
  p.rank = rank;
  p.world_size = world_size;
  return p;
}

// A rank's native file through the reader and the rank analysis: its communication kernels.
RankCollectives Analyzed(int rank, const std::vector<std::uint8_t>& file) {
  RankCollectives out{.rank = rank};
  auto trace = ingest::native::ReadNativeBytes(file.data(), file.size(), "rank" + std::to_string(rank));
  if (!trace) {
    ADD_FAILURE() << trace.error().message;
    return out;
  }
  auto verdict = verdict::AnalyzeRank(*trace, {});
  if (!verdict) {
    ADD_FAILURE() << verdict.error().message;
    return out;
  }
  out.items = std::move(verdict->collectives);
  out.window_start_ns = verdict->run.start_ns;
  out.window_end_ns = verdict->run.end_ns;
  return out;
}

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
  f.Add(Process(rank, 2));
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
    ranks.push_back(Analyzed(r, RankFile(r, static_cast<std::uint64_t>(r) * 3 * kMsNs, r)));
    ASSERT_EQ(ranks.back().items.size(), 2u * kRounds - static_cast<std::size_t>(r));
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
      EXPECT_EQ(item.kind, m.kind);
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

struct P2p {
  std::uint64_t comm;
  int group_rank, group_size;
  bool send;
  int peer;  // group rank
  std::uint64_t t;
};

// A rank's send/recv operations, each in its own NCCL kernel launched on thread 9 just before.
std::vector<std::uint8_t> P2pFile(int rank, const std::vector<P2p>& ops) {
  FileMaker f;
  f.String(2, "cuLaunchKernelEx");
  f.String(3, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
  f.String(5, "Send");
  f.String(6, "Recv");
  f.Add(Process(rank, 4));
  std::uint32_t corr = 1;
  for (const auto& op : ops) {
    f.Add(Launch(op.t, corr, 9));
    f.Add(Kernel(op.t + 20'000, op.t + kMsNs, corr, 3));
    wire::CollectiveRecord c = Collective(op.t + 10'000, op.t + kMsNs, op.comm, 0, op.send ? 5 : 6, 9);
    c.kind = static_cast<std::uint8_t>(wire::CollectiveKind::kP2p);
    c.rank = op.group_rank;
    c.nranks = op.group_size;
    c.peer = op.peer;
    c.count = 256;
    c.bytes = 1024;
    f.Add(c);
    ++corr;
  }
  f.Cut(/*last=*/true);
  return f.file();
}

// NCCL names a send/recv's peer by its rank in the communicator. In the world communicator
// (0x1, 4 ranks) that is the job rank; in 0x2, made of job ranks 2 and 3, rank 3 is 1. The
// pairs meet, in groups of more than two ranks too. Rank 0 also sends to rank 1, whose file is
// not in the input: that send cannot be paired.
TEST(ClusterNativeTest, SendRecvPeersAreCommunicatorRanks) {
  constexpr std::uint64_t kWorld = 0x1, kPair = 0x2;
  std::vector<std::vector<P2p>> ops(4);
  ops[0] = {{kWorld, 0, 4, true, 2, 10 * kMsNs}, {kWorld, 0, 4, true, 1, 20 * kMsNs}};
  ops[2] = {{kWorld, 2, 4, false, 0, 10 * kMsNs}, {kPair, 0, 2, true, 1, 30 * kMsNs}};
  ops[3] = {{kPair, 1, 2, false, 0, 30 * kMsNs}};
  std::vector<RankCollectives> ranks;
  for (int r : {0, 2, 3}) {
    ranks.push_back(Analyzed(r, P2pFile(r, ops[static_cast<std::size_t>(r)])));
    ASSERT_EQ(ranks.back().items.size(), ops[static_cast<std::size_t>(r)].size());
  }
  std::vector<const RankCollectives*> ptrs = {&ranks[0], &ranks[1], &ranks[2]};
  MatchSet set = MatchCollectives(ptrs);
  EXPECT_TRUE(set.problems.empty());
  EXPECT_EQ(set.unpaired_p2p, 1);
  EXPECT_EQ(set.unmatched, 0);
  std::set<std::tuple<std::string, std::int64_t, std::int64_t>> pairs;
  for (const auto& m : set.matches) {
    ASSERT_TRUE(m.p2p);
    EXPECT_TRUE(m.complete());
    pairs.insert({m.group, m.sender, m.receiver});
  }
  std::set<std::tuple<std::string, std::int64_t, std::int64_t>> expected = {{"0000000000000001", 0, 2},
                                                                            {"0000000000000002", 2, 3}};
  EXPECT_EQ(pairs, expected);
}

}  // namespace
}  // namespace plasmient::cluster
