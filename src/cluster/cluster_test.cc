#include "cluster/cluster.h"

#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "cluster/cluster_match.h"

namespace plasmient::cluster {
namespace {

constexpr TimeNs kMs = kNsPerMs, kUs = kNsPerUs;

// A job on a true clock; rank r's trace reads true time + offset[r].
struct Job {
  explicit Job(std::vector<TimeNs> offsets_ns) : offset(std::move(offsets_ns)) {
    for (std::size_t r = 0; r < offset.size(); ++r) {
      ranks.push_back({.rank = static_cast<std::int64_t>(r),
                       .items = {},
                       .window_start_ns = offset[r],
                       .window_end_ns = offset[r] + kNsPerS});
    }
  }
  // One collective: member i arrives at arrival[i]; all leave at max arrival + transfer (+ noise[i]).
  void Collective(const std::string& group, std::vector<int> members, std::int64_t seq,
                  const std::string& kind, std::vector<TimeNs> arrival, TimeNs transfer_ns, std::int64_t step,
                  std::vector<TimeNs> exit_noise = {}, std::int64_t bytes = 1 << 20) {
    TimeNs end = *std::max_element(arrival.begin(), arrival.end()) + transfer_ns;
    std::string listed = "[";
    for (std::size_t i = 0; i < members.size(); ++i) listed += (i ? ", " : "") + std::to_string(members[i]);
    listed += "]";
    for (std::size_t i = 0; i < members.size(); ++i) {
      int r = members[i];
      CollectiveInstance c;
      c.group = group;
      c.group_ranks = listed;
      c.group_size = static_cast<std::int32_t>(members.size());
      c.seq = seq;
      c.name = kind;
      c.kind = ParseCollectiveKind(kind);
      c.bytes = bytes;
      c.step = step;
      c.start_ns = arrival[i] + offset[r];
      c.end_ns = end + offset[r] + (exit_noise.empty() ? 0 : exit_noise[i]);
      c.kernel = "ncclDevKernel_" + kind;
      ranks[r].items.push_back(c);
    }
  }
  // A send from `from` to `to` in a two-rank group; peer left for the matcher to infer.
  void Send(int from, int to, TimeNs send_arrival, TimeNs recv_arrival, TimeNs transfer_ns, std::int64_t step,
            bool with_peer = false, const std::string& group = "") {
    std::string g = group.empty() ? fmt::format("p2p:{}->{}", from, to) : group;
    TimeNs end = std::max(send_arrival, recv_arrival) + transfer_ns;
    for (int side = 0; side < 2; ++side) {
      int r = side == 0 ? from : to;
      CollectiveInstance c;
      c.group = g;
      if (group.empty()) c.group_ranks = fmt::format("[{}, {}]", std::min(from, to), std::max(from, to));
      c.name = side == 0 ? "send" : "recv";
      c.kind = side == 0 ? CollectiveKind::kSend : CollectiveKind::kRecv;
      c.p2p = true;
      c.peer = with_peer ? (side == 0 ? to : from) : -1;
      c.bytes = 4 << 20;
      c.step = step;
      c.start_ns = (side == 0 ? send_arrival : recv_arrival) + offset[r];
      c.end_ns = end + offset[r];
      ranks[r].items.push_back(c);
    }
  }
  std::vector<TimeNs> offset;
  std::vector<RankCollectives> ranks;
};

// Deterministic noise in [-amplitude, amplitude].
struct Noise {
  std::uint64_t state = 12345;
  TimeNs operator()(TimeNs amplitude) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<TimeNs>((state >> 33) % static_cast<std::uint64_t>(2 * amplitude + 1)) - amplitude;
  }
};

// Hosts without clock sync are seconds or hours apart: matched by group, kind and sequence, the
// collectives align the ranks however far their clocks are, as exactly as microseconds apart.
TEST(ClusterTest, OffsetsFromAMicrosecondToADayAreRecoveredExactly) {
  const TimeNs hour = 3600 * kNsPerS;
  for (TimeNs offset : {kUs, 40 * kMs, 7 * kNsPerS, hour, -hour, 24 * hour}) {
    Job job({0, offset, offset / 3});
    for (int k = 0; k < 5; ++k) {  // a 15 ms profile: far shorter than the offset
      TimeNs at = k * 3 * kMs;
      job.Collective("0", {0, 1, 2}, k, "allreduce", {at, at + kMs, at + 200 * kUs}, kMs, 1, {}, 1 << 20);
    }
    auto result = AnalyzeCluster(job.ranks, {});
    ASSERT_EQ(result.ranks.size(), 3u);
    EXPECT_TRUE(result.problems.empty()) << offset << ": " << result.problems.front();
    EXPECT_EQ(result.matched, 5);
    for (int r = 1; r < 3; ++r) {
      EXPECT_TRUE(result.ranks[r].clock_aligned) << offset;
      EXPECT_NEAR(static_cast<double>(result.ranks[r].clock_offset_ns), static_cast<double>(job.offset[r]),
                  1e3)
          << "offset " << offset << " rank " << r;
    }
    // Rank 1 arrives 1 ms late every time: its wait is charged to it on the aligned clock.
    EXPECT_NEAR(result.ranks[1].caused_wait_s, 5 * (1e-3 + 0.8e-3), 1e-6) << offset;
  }
}

TEST(ClusterTest, CollectivesOfOtherSizesAreAProblemNeverAnAlignment) {
  // Two jobs whose collectives happen to match by group, kind and order but move other sizes.
  Job job({0, 5 * kMs});
  for (int k = 0; k < 5; ++k) {
    TimeNs at = k * 10 * kMs;
    job.Collective("0", {0}, k, "allreduce", {at}, kMs, k, {}, 1 << 20);
    job.Collective("0", {1}, k, "allreduce", {at}, kMs, k, {}, 3 << 20);
  }
  for (auto& c : job.ranks[0].items) c.group_size = 2, c.group_ranks = "[0, 1]";
  for (auto& c : job.ranks[1].items) c.group_size = 2, c.group_ranks = "[0, 1]";
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.ranks.size(), 2u);
  EXPECT_TRUE(result.ranks[0].clock_aligned);
  EXPECT_FALSE(result.ranks[1].clock_aligned);
  EXPECT_EQ(result.ranks[1].clock_offset_ns, 0);
  EXPECT_EQ(result.matched, 0);  // no wait or bandwidth figures from mismatched collectives
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_NE(
      result.problems[0].find("rank 1's collectives differ from rank 0's in 5 of 5 matched "
                              "(all_reduce 0 of group '0' is 3145728 B on rank 1 but 1048576 B on rank 0)"),
      std::string::npos)
      << result.problems[0];
}

TEST(ClusterTest, RecoversClockOffsetsDespiteJitterAndOutliers) {
  std::vector<TimeNs> offsets = {7 * kMs, -31 * kMs, 12 * kMs, 48 * kMs, -3 * kMs, 25 * kMs, 0, -44 * kMs};
  Job job(offsets);
  Noise noise;
  std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int k = 0; k < 40; ++k) {
    std::vector<TimeNs> arrival, exit_noise;
    for (int r = 0; r < 8; ++r) {
      arrival.push_back(k * 10 * kMs + noise(300 * kUs) + 300 * kUs);
      // Exits jitter by ±10 µs; every 13th exit on a rank is an outlier 3 ms late.
      exit_noise.push_back((k * 8 + r) % 13 == 0 ? 3 * kMs : noise(10 * kUs));
    }
    job.Collective("0", all, k, "allreduce", arrival, 500 * kUs, k / 4, exit_noise);
  }
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.ranks.size(), 8u);
  EXPECT_EQ(result.reference_rank, 0);
  EXPECT_TRUE(result.problems.empty());
  EXPECT_EQ(result.matched, 40);
  EXPECT_EQ(result.unmatched, 0);
  for (int r = 0; r < 8; ++r) {
    EXPECT_TRUE(result.ranks[r].clock_aligned);
    EXPECT_NEAR(static_cast<double>(result.ranks[r].clock_offset_ns),
                static_cast<double>(offsets[r] - offsets[0]), 50.0 * kUs)
        << "rank " << r;
  }
}

TEST(ClusterTest, AlignsAChainOfRanksThatNeverShareAGroupWithTheReference) {
  std::vector<TimeNs> offsets = {0, 20 * kMs, -15 * kMs, 33 * kMs};
  Job job(offsets);
  Noise noise;
  for (int step = 0; step < 6; ++step) {
    for (int s = 0; s < 3; ++s) {
      TimeNs t = step * 50 * kMs + s * 2 * kMs;
      job.Send(s, s + 1, t + noise(200 * kUs), t, 300 * kUs, step);
    }
  }
  auto result = AnalyzeCluster(job.ranks, {});
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(result.ranks[r].clock_aligned);
    EXPECT_NEAR(static_cast<double>(result.ranks[r].clock_offset_ns), static_cast<double>(offsets[r]), 1.0);
  }
  EXPECT_EQ(result.ranks[0].alignment_matches, 6);
  EXPECT_EQ(result.ranks[3].alignment_matches, 6);
}

// Four ranks, ten steps: rank 3 reaches the all-reduce 2 ms after the others in steps 0..8, on time
// in step 9. Each step the three others wait 2 ms: 3 × 2 ms × 9 = 54 ms charged to rank 3.
TEST(ClusterTest, NamesTheStragglerWithExactCausedWait) {
  Job job({0, 5 * kMs, -9 * kMs, 17 * kMs});
  for (int step = 0; step < 10; ++step) {
    TimeNs t = step * 100 * kMs;
    TimeNs late = step < 9 ? 2 * kMs : 0;
    job.Collective("0", {0, 1, 2, 3}, step, "allreduce", {t, t, t, t + late}, kMs, step);
  }
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.stragglers.size(), 1u);
  const auto& s = result.stragglers[0];
  EXPECT_EQ(s.rank, 3);
  EXPECT_NEAR(s.caused_wait_s, 0.054, 1e-12);
  EXPECT_NEAR(s.capacity_fraction, 0.054 / 4.0, 1e-12);
  EXPECT_EQ(s.late_steps, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.late_collectives, 9);
  EXPECT_EQ(s.collectives, 10);
  EXPECT_NEAR(s.mean_late_s, 0.002, 1e-12);
  EXPECT_EQ(s.kind, CollectiveKind::kAllReduce);
  for (int r = 0; r < 3; ++r) {
    EXPECT_NEAR(result.ranks[r].wait_on_peers_s, 0.018, 1e-12);
    EXPECT_NEAR(result.ranks[r].transfer_s, 0.010, 1e-12);
    EXPECT_EQ(result.ranks[r].caused_wait_s, 0);
  }
  EXPECT_NEAR(result.ranks[3].caused_wait_s, 0.054, 1e-12);
  EXPECT_EQ(result.ranks[3].wait_on_peers_s, 0);
  EXPECT_EQ(result.ranks[3].last_arrivals, 9);
}

// The 8-rank case: a rank that arrives last because its step began late, its work as long as
// its peers', is a late start (nothing to recover by evening out its work); a rank whose step
// began on time and whose work took longer is slow work.
TEST(ClusterTest, StragglersByCauseLateStartOrSlowWork) {
  for (bool late_start : {true, false}) {
    Job job({0, 5 * kMs, -9 * kMs, 17 * kMs});
    for (auto& r : job.ranks) r.window_end_ns = r.window_start_ns + 600 * kMs;
    for (int step = 0; step < 6; ++step) {
      TimeNs t = step * 100 * kMs;
      // Every rank begins its step at t (rank 3: t + 2 ms when late_start) and works 10 ms
      // (rank 3: 12 ms when slow): rank 3 arrives 2 ms late either way.
      for (int r = 0; r < 4; ++r) {
        TimeNs begin = t + (r == 3 && late_start ? 2 * kMs : 0);
        job.ranks[r].step_starts.emplace_back(step, begin + job.offset[r]);
      }
      job.Collective("0", {0, 1, 2, 3}, step, "allreduce",
                     {t + 10 * kMs, t + 10 * kMs, t + 10 * kMs, t + 12 * kMs}, kMs, step);
    }
    auto result = AnalyzeCluster(job.ranks, {});
    ASSERT_EQ(result.stragglers.size(), 1u) << late_start;
    const auto& s = result.stragglers[0];
    EXPECT_EQ(s.rank, 3);
    EXPECT_NEAR(s.caused_wait_s, 6 * 3 * 0.002, 1e-12);
    EXPECT_EQ(s.cause, late_start ? "late_start" : "slow_work");
    EXPECT_NEAR(s.late_start_s, late_start ? 0.012 : 0, 1e-12);
    EXPECT_NEAR(s.slow_work_s, late_start ? 0 : 0.012, 1e-12);
    EXPECT_EQ(s.cause_steps, 6);
    EXPECT_NEAR(s.confidence, 6.0 / 7.0, 1e-12);  // held in every late collective, over 6 steps
  }
}

TEST(ClusterTest, OneStepIsWeakEvidence) {
  Job job({0, 0});
  for (auto& r : job.ranks) r.window_end_ns = r.window_start_ns + 15 * kMs;
  job.ranks[0].step_starts = {{3, 0}};
  job.ranks[1].step_starts = {{3, 7 * kMs}};  // began 7 ms late, the same 3 ms of work
  job.Collective("0", {0, 1}, 0, "alltoall", {3 * kMs, 10 * kMs}, kMs, 3);
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.stragglers.size(), 1u);
  EXPECT_EQ(result.stragglers[0].cause, "late_start");
  EXPECT_NEAR(result.stragglers[0].confidence, 0.5, 1e-12);
}

// A collective's exposed time is split pro rata into the wait for the last peer and the transfer.
TEST(ClusterTest, ExposedTimeSplitsIntoWaitAndTransfer) {
  Job job({0, 3 * kMs});
  job.Collective("0", {0, 1}, 0, "allreduce", {0, 3 * kMs}, kMs, 0);  // rank 0: 3 ms wait, 1 ms transfer
  job.ranks[0].items[0].exposed_s = 0.002;  // half its 4 ms kernel had no compute beside it
  job.ranks[1].items[0].exposed_s = 0.001;  // rank 1: no wait, 1 ms transfer, all exposed
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.matched, 1);
  EXPECT_NEAR(result.ranks[0].exposed_wait_s, 0.0015, 1e-12);
  EXPECT_NEAR(result.ranks[0].exposed_transfer_s, 0.0005, 1e-12);
  EXPECT_NEAR(result.ranks[1].exposed_wait_s, 0, 1e-12);
  EXPECT_NEAR(result.ranks[1].exposed_transfer_s, 0.001, 1e-12);
}

TEST(ClusterTest, NoStragglerWhenArrivalsOnlyJitter) {
  Job job({0, 3 * kMs, 0, 0});
  Noise noise;
  for (int step = 0; step < 10; ++step) {
    TimeNs t = step * 100 * kMs;
    job.Collective("0", {0, 1, 2, 3}, step, "allreduce",
                   {t + noise(5 * kUs), t + noise(5 * kUs), t + noise(5 * kUs), t + noise(5 * kUs)}, kMs,
                   step);
  }
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_TRUE(result.stragglers.empty());
  double caused = 0, waited = 0;
  for (const auto& r : result.ranks) caused += r.caused_wait_s, waited += r.wait_on_peers_s;
  EXPECT_NEAR(caused, waited, 1e-12);  // every second waited is charged to someone
}

// Each rank in turn arrives 1 ms late: every one causes 6 ms of wait over 4 s of capacity
// (1.5%), but none stands out from the others.
TEST(ClusterTest, TakingTurnsBeingLastIsNotStraggling) {
  Job job({0, 0, 0, 0});
  for (int step = 0; step < 8; ++step) {
    TimeNs t = step * 100 * kMs;
    std::vector<TimeNs> arrival = {t, t, t, t};
    arrival[step % 4] += kMs;
    job.Collective("0", {0, 1, 2, 3}, step, "allreduce", arrival, kMs, step);
  }
  auto result = AnalyzeCluster(job.ranks, {});
  for (const auto& r : result.ranks) EXPECT_NEAR(r.caused_wait_s, 0.006, 1e-12);
  EXPECT_TRUE(result.stragglers.empty());
}

TEST(ClusterTest, MatchesBySeqDespiteOrderAndCountsMissingInstances) {
  Job job({0, 0});
  job.Collective("0", {0, 1}, 1, "allreduce", {0, 0}, kMs, 0);
  job.Collective("0", {0, 1}, 2, "allgather", {5 * kMs, 5 * kMs}, kMs, 0);
  std::swap(job.ranks[1].items[0], job.ranks[1].items[1]);      // rank 1 saw them in the other order
  job.Collective("0", {0}, 3, "allreduce", {9 * kMs}, kMs, 0);  // rank 1's copy missing
  job.ranks[0].items.back().group_size = 2;
  job.ranks[0].items.back().group_ranks = "[0, 1]";
  std::vector<const RankCollectives*> ptrs = {&job.ranks[0], &job.ranks[1]};
  MatchSet set = MatchCollectives(ptrs);
  ASSERT_EQ(set.matches.size(), 3u);
  EXPECT_EQ(set.matches[0].seq, 1);
  EXPECT_EQ(set.matches[0].kind, CollectiveKind::kAllReduce);
  ASSERT_EQ(set.matches[0].members.size(), 2u);
  EXPECT_EQ(set.matches[0].members[1].item, 1);  // rank 1's seq 1 sits second
  EXPECT_TRUE(set.matches[1].complete());
  EXPECT_FALSE(set.matches[2].complete());
  EXPECT_EQ(set.unmatched, 1);
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_EQ(result.matched, 2);
  EXPECT_EQ(result.quality.Get(model::Dq::kCollectiveUnmatched), 1);
}

// The native trace's seq is NCCL's seqNumber, counted per collective type: an all-reduce and an
// all-gather can both be seq 1 in one communicator, and ranks may issue them in either order.
TEST(ClusterTest, SeqIsPerCollectiveType) {
  Job job({0, 0});
  job.Collective("0", {0, 1}, 1, "allreduce", {0, 0}, kMs, 0);
  job.Collective("0", {0, 1}, 1, "allgather", {5 * kMs, 5 * kMs}, kMs, 0);
  std::swap(job.ranks[1].items[0], job.ranks[1].items[1]);
  std::vector<const RankCollectives*> ptrs = {&job.ranks[0], &job.ranks[1]};
  MatchSet set = MatchCollectives(ptrs);
  ASSERT_EQ(set.matches.size(), 2u);
  for (const auto& m : set.matches) {
    ASSERT_TRUE(m.complete());
    EXPECT_EQ(job.ranks[0].items[m.members[0].item].kind, job.ranks[1].items[m.members[1].item].kind);
  }
  EXPECT_EQ(set.unmatched, 0);
}

TEST(ClusterTest, OneSeqRunAsTwoKernelsMatchesKernelByKernel) {
  Job job({0, 3 * kMs});
  job.Collective("0", {0, 1}, 5, "allreduce", {0, 0}, kMs, 0);
  job.Collective("0", {0, 1}, 5, "allreduce", {4 * kMs, 4 * kMs}, kMs, 0);
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_EQ(result.matched, 2);
  EXPECT_EQ(result.unmatched, 0);
  EXPECT_EQ(result.ranks[1].clock_offset_ns, 3 * kMs);
}

TEST(ClusterTest, MatchesByOrderPerKindWithoutSeq) {
  Job job({0, 2 * kMs});
  // Rank 1 runs the all-gather before the all-reduce; without seq the k-th of each kind pair up.
  for (int k = 0; k < 3; ++k) {
    job.Collective("0", {0, 1}, -1, "allreduce", {k * 10 * kMs, k * 10 * kMs}, kMs, k);
    job.Collective("0", {0, 1}, -1, "allgather", {k * 10 * kMs + 4 * kMs, k * 10 * kMs + 4 * kMs}, kMs, k);
    auto& items = job.ranks[1].items;
    std::swap(items[items.size() - 1], items[items.size() - 2]);
  }
  std::vector<const RankCollectives*> ptrs = {&job.ranks[0], &job.ranks[1]};
  MatchSet set = MatchCollectives(ptrs);
  ASSERT_EQ(set.matches.size(), 6u);
  for (const auto& m : set.matches) {
    ASSERT_TRUE(m.complete());
    const auto& a = job.ranks[0].items[m.members[0].item];
    const auto& b = job.ranks[1].items[m.members[1].item];
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.step, b.step);
  }
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_EQ(result.ranks[1].clock_offset_ns, 2 * kMs);
}

// Four stages, eight microbatches per step: forward sends s → s+1 and backward sends s+1 → s.
Job Pipeline(bool with_peer) {
  Job job({0, 4 * kMs, -2 * kMs, 7 * kMs});
  for (int step = 0; step < 3; ++step) {
    for (int mb = 0; mb < 8; ++mb) {
      TimeNs t = step * 200 * kMs + mb * 5 * kMs;
      for (int s = 0; s < 3; ++s) {
        std::string fwd = with_peer ? "pp" : "";
        job.Send(s, s + 1, t + s * kMs, t + s * kMs - 100 * kUs, 200 * kUs, step, with_peer, fwd);
        job.Send(s + 1, s, t + 100 * kMs + s * kMs, t + 100 * kMs + s * kMs, 200 * kUs, step, with_peer, fwd);
      }
    }
  }
  return job;
}

TEST(ClusterTest, PairsSendsWithRecvsAndInfersPipelineShape) {
  for (bool with_peer : {false, true}) {
    Job job = Pipeline(with_peer);
    if (with_peer) {
      for (auto& r : job.ranks) {
        for (auto& c : r.items) c.group_ranks = "[0, 1, 2, 3]";
      }
    }
    auto result = AnalyzeCluster(job.ranks, {});
    EXPECT_EQ(result.unmatched, 0) << with_peer;
    EXPECT_EQ(result.unpaired_p2p, 0);
    EXPECT_EQ(result.matched, 3 * 8 * 3 * 2);
    ASSERT_EQ(result.pipeline.size(), 4u);
    for (int s = 0; s < 4; ++s) {
      EXPECT_EQ(result.pipeline[s].rank, s);
      EXPECT_EQ(result.pipeline[s].stage, s);
      EXPECT_EQ(result.pipeline[s].stages, 4);
      EXPECT_EQ(result.pipeline[s].microbatches, 8);
      EXPECT_NEAR(result.pipeline[s].ideal_bubble, 3.0 / 11.0, 1e-12);
      EXPECT_NEAR(static_cast<double>(result.ranks[s].clock_offset_ns), static_cast<double>(job.offset[s]),
                  1.0);
    }
    // The receiver of each forward send waited 100 µs: p2p wait, never charged as straggling.
    EXPECT_NEAR(result.ranks[1].p2p_wait_s, 3 * 8 * 100e-6, 1e-9);
    EXPECT_TRUE(result.stragglers.empty());
  }
}

TEST(ClusterTest, UndirectedSendRecvPairsButShapesNoPipeline) {
  Job job({0, 6 * kMs});
  for (int k = 0; k < 4; ++k) job.Send(0, 1, k * 10 * kMs, k * 10 * kMs + 50 * kUs, kMs, k);
  for (auto& r : job.ranks) {
    for (auto& c : r.items) {
      c.name = "ncclkernel_sendrecv";
      c.kind = ParseCollectiveKind(c.name);
    }
  }
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_EQ(result.matched, 4);
  EXPECT_EQ(result.ranks[1].clock_offset_ns, 6 * kMs);
  EXPECT_NEAR(result.ranks[0].p2p_wait_s, 4 * 50e-6, 1e-12);
  EXPECT_TRUE(result.pipeline.empty());
}

TEST(ClusterTest, SendRecvWithoutPeerInALargeGroupIsUnpaired) {
  Job job({0, 0, 0});
  job.Send(0, 1, 0, 0, kMs, 0, false, "world");
  for (auto& r : job.ranks) {
    for (auto& c : r.items) c.group_ranks = "[0, 1, 2]";
  }
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_EQ(result.unpaired_p2p, 2);
  EXPECT_EQ(result.matched, 0);
}

TEST(ClusterTest, BusBandwidthFollowsNcclConventions) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kBroadcast, 8), 1);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kSend, 2), 1);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kOther, 8), 0);
  EXPECT_DOUBLE_EQ(AlgorithmBytes(CollectiveKind::kAllGather, 1000, 8), 8000);
  EXPECT_DOUBLE_EQ(AlgorithmBytes(CollectiveKind::kReduceScatter, 8000, 8), 8000);

  // 4 ranks all-gather 25 MB each (100 MB out) in 1 ms after the last arrival: algbw 100 GB/s,
  // busbw 75 GB/s; against a 150 GB/s link it ran at half and took 0.5 ms too long.
  Job job({0, 0, 0, 0});
  job.Collective("0", {0, 1, 2, 3}, 0, "_allgather_base", {0, 0, 0, 0}, kMs, 0, {}, 25'000'000);
  // A small all-reduce: latency-bound, but it loses only 10 µs.
  job.Collective("0", {0, 1, 2, 3}, 1, "allreduce", {0, 0, 0, 0}, 10 * kUs, 0, {}, 1000);
  auto result = AnalyzeCluster(job.ranks, {.link_bytes_per_s = 150e9, .worst_n = 1});
  ASSERT_EQ(result.worst_collectives.size(), 1u);
  const auto& c = result.worst_collectives[0];
  EXPECT_EQ(c.kind, CollectiveKind::kAllGather);
  EXPECT_NEAR(c.algorithm_bytes_per_s, 100e9, 1);
  EXPECT_NEAR(c.bus_bytes_per_s, 75e9, 1);
  EXPECT_NEAR(c.link_fraction, 0.5, 1e-9);
  EXPECT_NEAR(c.excess_s, 0.5e-3, 1e-12);
}

TEST(ClusterTest, ParsesKindsFromArgsAndKernelNames) {
  EXPECT_EQ(ParseCollectiveKind("allreduce"), CollectiveKind::kAllReduce);
  EXPECT_EQ(ParseCollectiveKind("ncclKernel_AllReduce_RING_LL_Sum_float"), CollectiveKind::kAllReduce);
  EXPECT_EQ(ParseCollectiveKind("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"),
            CollectiveKind::kReduceScatter);
  EXPECT_EQ(ParseCollectiveKind("_reduce_scatter_base"), CollectiveKind::kReduceScatter);
  EXPECT_EQ(ParseCollectiveKind("all_to_all"), CollectiveKind::kAllToAll);
  EXPECT_EQ(ParseCollectiveKind("reduce"), CollectiveKind::kReduce);
  EXPECT_EQ(ParseCollectiveKind("ncclKernel_SendRecv"), CollectiveKind::kOther);
  EXPECT_EQ(ParseCollectiveKind("recv"), CollectiveKind::kRecv);
  // Expert-parallel dispatch/combine kernels (DeepEP) exchange tokens all-to-all.
  EXPECT_EQ(ParseCollectiveKind("void deep_ep::intranode::dispatch<8, 768>(int4*)"),
            CollectiveKind::kAllToAll);
  EXPECT_EQ(ParseCollectiveKind("void dpsk::ep::internode::cached_notify<false>(int)"),
            CollectiveKind::kAllToAll);
  EXPECT_EQ(ParseCollectiveKind("void dpsk::ep::cuda::get_dispatch_layout<256>(long)"),
            CollectiveKind::kOther);
  // The collective's name first (an all-to-all run as SendRecv), the kernel's when it names none.
  EXPECT_EQ(ParseCollectiveKind("all_to_all", "ncclKernel_SendRecv"), CollectiveKind::kAllToAll);
  EXPECT_EQ(ParseCollectiveKind("", "ncclDevKernel_AllGather_RING_LL"), CollectiveKind::kAllGather);
  EXPECT_EQ(ParseCollectiveKind("coalesced", "ncclDevKernel_AllReduce_Sum_f32"), CollectiveKind::kAllReduce);
  EXPECT_EQ(ParseGroupRanks("[0, 1, 12, 3]"), (std::vector<std::int64_t>{0, 1, 12, 3}));
  EXPECT_TRUE(ParseGroupRanks("").empty());
}

TEST(ClusterTest, ReportsInputsThatCannotBeOneJob) {
  Job job({0, 0, 0, 0});
  job.Collective("0", {0, 1}, 0, "allreduce", {0, 0}, kMs, 0);
  job.Collective("1", {2, 3}, 0, "allreduce", {0, 0}, kMs, 0);
  job.ranks.push_back(job.ranks[1]);  // rank 1 twice
  // Group "0" again on rank 1 with other members: two jobs that both call their world "0".
  job.ranks[1].items.push_back(job.ranks[1].items[0]);
  job.ranks[1].items.back().group_ranks = "[0, 1, 2, 3]";
  job.ranks[1].items.back().group_size = 4;
  auto result = AnalyzeCluster(job.ranks, {});
  EXPECT_EQ(result.quality.Get(model::Dq::kDuplicateRank), 1);
  ASSERT_GE(result.problems.size(), 3u);
  auto has = [&](std::string_view text) {
    return std::any_of(result.problems.begin(), result.problems.end(),
                       [&](const std::string& p) { return p.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("rank 1 given more than once"));
  EXPECT_TRUE(has("group '0' has members [0, 1] on rank 0 but [0, 1, 2, 3] on rank 1"));
  EXPECT_TRUE(has("ranks [1, 2, 3] share no matched collective with rank 0"));
  EXPECT_FALSE(result.ranks[2].clock_aligned);
  EXPECT_EQ(result.matched, 0);  // group "0" is conflicted; group "1" cannot be put on rank 0's clock
}

TEST(ClusterTest, GroupSizeDisagreementIsAProblem) {
  Job job({0, 0});
  job.Collective("0", {0, 1}, 0, "allreduce", {0, 0}, kMs, 0);
  job.ranks[0].items[0].group_ranks.clear();
  job.ranks[1].items[0].group_ranks.clear();
  job.ranks[1].items[0].group_size = 8;
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.problems.size(), 2u);
  EXPECT_EQ(result.problems[0], "group '0' has sizes {2, 8} on different ranks");
}

// Two ranks that both say they are communicator rank 0 of one group cannot be one communicator.
TEST(ClusterTest, OneGroupRankOnTwoRanksIsAProblem) {
  Job job({0, 0});
  job.Collective("0", {0, 1}, 0, "allreduce", {0, 0}, kMs, 0);
  for (auto& r : job.ranks) r.items[0].group_rank = 0;
  std::vector<const RankCollectives*> ptrs = {&job.ranks[0], &job.ranks[1]};
  MatchSet set = MatchCollectives(ptrs);
  ASSERT_EQ(set.problems.size(), 1u);
  EXPECT_EQ(set.problems[0], "group '0' has rank 0 on ranks 0 and 1");
  EXPECT_TRUE(set.matches.empty());
}

TEST(ClusterTest, EmptyAndSingleRankInputs) {
  EXPECT_TRUE(AnalyzeCluster({}, {}).ranks.empty());
  Job job({0});
  auto result = AnalyzeCluster(job.ranks, {});
  ASSERT_EQ(result.ranks.size(), 1u);
  EXPECT_TRUE(result.ranks[0].clock_aligned);
  EXPECT_TRUE(result.stragglers.empty());
}

}  // namespace
}  // namespace plasmient::cluster
