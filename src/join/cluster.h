// The cluster layer: a job's ranks on one clock. Matches each collective across the ranks of its
// group, aligns rank clocks from the near-simultaneous exits, charges the time ranks spend waiting
// on their peers to the rank that arrived last (stragglers), infers pipeline shape from send/recv,
// and measures collective bandwidth with NCCL's bus-bandwidth conventions (docs/cluster.md).
// A pure function over per-rank summaries: no rank's trace is needed, so ranks stream through.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/time_units.h"
#include "join/collective_instance.h"
#include "model/data_quality.h"

namespace plasmient::join {

struct RankCollectives {
  std::int64_t rank = -1;
  std::vector<CollectiveInstance> items;
  TimeNs window_start_ns = 0, window_end_ns = 0;  // the rank's run window W, on its own clock
};

struct ClusterOptions {
  double link_bytes_per_s = 0;             // peak bus bandwidth to judge collectives by; 0 = unknown
  std::size_t worst_n = 10;                // collectives reported
  std::int64_t min_alignment_matches = 3;  // fewer matched exits: the rank's clock offset is weak
  // A straggler causes ≥ this share of job capacity in waits ...
  double straggler_min_fraction = 0.01;
  // ... and ≥ this × the median of the other ranks' caused wait (jitter makes every rank last
  // sometimes; a straggler is the one that stands out).
  double straggler_median_factor = 2;
};

enum class CollectiveKind : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSend,
  kRecv,
  kOther
};
CollectiveKind ParseCollectiveKind(
    std::string_view kind_or_kernel);                      // "all_reduce", "ncclKernel_AllGather_…"
std::string_view CollectiveKindName(CollectiveKind kind);  // "all_reduce", ...
// NCCL's bus-bandwidth factor for n ranks: all-reduce 2(n−1)/n, all-gather, reduce-scatter and
// all-to-all (n−1)/n, broadcast, reduce, send and recv 1; 0 for kOther.
double BusBandwidthFactor(CollectiveKind kind, std::int64_t n);
// The size NCCL's tests divide by time for algorithm bandwidth, from the per-rank input bytes:
// all-gather's input is 1/n of its output, so n × bytes; the input bytes for every other kind.
double AlgorithmBytes(CollectiveKind kind, std::int64_t per_rank_input_bytes, std::int64_t n);

struct RankClusterFigures {
  std::int64_t rank = -1;
  TimeNs clock_offset_ns = 0;                 // this rank's clock minus the reference (lowest) rank's
  bool clock_aligned = false;                 // false: no matched collective links it to the reference
  std::int64_t alignment_matches = 0;         // matched exits its offset rests on
  double wait_on_peers_s = 0;                 // collectives: time its kernels spent before the last arrival
  double transfer_s = 0;                      // collectives: time after the last arrival
  double caused_wait_s = 0;                   // others' wait_on_peers charged to it as the last arrival
  double p2p_wait_s = 0, p2p_transfer_s = 0;  // the same split of its send/recv kernels
  std::int64_t last_arrivals = 0;  // matched collectives it arrived last at, keeping others waiting
};

struct Straggler {
  std::int64_t rank = -1;
  double caused_wait_s = 0;
  double capacity_fraction = 0;          // caused_wait_s / Σ over ranks of window length
  std::string kind;                      // the collective it most often held up
  std::vector<std::int64_t> late_steps;  // steps in which it caused the most wait
  std::int64_t steps = 0;                // steps with a matched collective of its
  std::int64_t late_collectives = 0, collectives = 0;
  double mean_late_s = 0;  // its arrival minus the others' median arrival, when last
};

struct CollectiveFigures {
  std::string group;
  CollectiveKind kind = CollectiveKind::kOther;
  std::int64_t seq = -1;     // sequence number, or -1 when matched by order
  std::int64_t ordinal = 0;  // occurrence in its group (and kind, or send/recv channel)
  std::int64_t step = -1;
  std::int64_t ranks = 0;
  std::int64_t bytes = -1;  // per-rank input bytes (the largest reported)
  std::int64_t last_rank = -1;
  TimeNs first_arrival_ns = 0;  // on the reference clock
  double arrival_spread_s = 0;  // last arrival − first arrival
  double transfer_s = 0;        // median over ranks of end − last arrival
  double algorithm_bytes_per_s = 0, bus_bytes_per_s = 0;
  double link_fraction = 0;  // bus bandwidth over ClusterOptions::link_bytes_per_s
  double excess_s = 0;       // transfer_s beyond what the link peak needs
};

struct PipelineStage {
  std::int64_t rank = -1;
  std::int64_t pipeline = 0;           // which send/recv chain (data-parallel replicas have several)
  std::int64_t stage = 0, stages = 0;  // position in the chain, S
  std::int64_t microbatches = 0;       // M: forward sends per step on the chain's links; 0 unknown
  double ideal_bubble = -1;            // (S−1)/(M+S−1), −1 when M is unknown
};

struct ClusterResult {
  std::int64_t reference_rank = -1;
  std::vector<RankClusterFigures> ranks;  // by rank; duplicates dropped
  std::vector<Straggler> stragglers;      // by caused wait, largest first
  std::vector<CollectiveFigures> worst_collectives;
  std::vector<PipelineStage> pipeline;
  std::vector<std::string> problems;  // why these inputs may not be one job
  std::int64_t matched = 0, unmatched = 0, unpaired_p2p = 0;
  double capacity_s = 0;
  model::DataQuality quality;  // collective_unmatched, duplicate_rank, clock_alignment_weak
};

ClusterResult AnalyzeCluster(std::span<const RankCollectives> ranks, const ClusterOptions& options);

}  // namespace plasmient::join
