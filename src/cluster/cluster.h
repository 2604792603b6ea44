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
#include "join/collective_kind.h"
#include "model/data_quality.h"
#include "verdict/cluster_figures.h"

namespace plasmient::cluster {

using join::CollectiveInstance;
using join::CollectiveKind;
using join::ParseCollectiveKind;
using verdict::CollectiveFigures;
using verdict::PipelineStage;
using verdict::Straggler;

struct RankCollectives {
  std::int64_t rank = -1;
  std::vector<CollectiveInstance> items;
  TimeNs window_start_ns = 0, window_end_ns = 0;  // the rank's run window W, on its own clock
  // (ProfilerStep number, its start on the rank's own clock), by number: where a late start shows.
  std::vector<std::pair<std::int64_t, TimeNs>> step_starts = {};
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

struct RankClusterFigures {
  std::int64_t rank = -1;
  TimeNs clock_offset_ns = 0;                 // this rank's clock minus the reference (lowest) rank's
  bool clock_aligned = false;                 // false: no matched collective links it to the reference
  std::int64_t alignment_matches = 0;         // matched exits its offset rests on
  double wait_on_peers_s = 0;                 // collectives: time its kernels spent before the last arrival
  double transfer_s = 0;                      // collectives: time after the last arrival
  double caused_wait_s = 0;                   // others' wait_on_peers charged to it as the last arrival
  double p2p_wait_s = 0, p2p_transfer_s = 0;  // the same split of its send/recv kernels
  // Its matched collectives' exposed time (CollectiveInstance::exposed_s) split pro rata into wait
  // and transfer within each instance.
  double exposed_wait_s = 0, exposed_transfer_s = 0;
  std::int64_t last_arrivals = 0;  // matched collectives it arrived last at, keeping others waiting
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

}  // namespace plasmient::cluster
