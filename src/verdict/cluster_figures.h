// The cluster layer's figures as the job verdict holds them (docs/cluster.md): the cluster stage
// (src/cluster/) computes them after every rank's verdict; sinks read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/time_units.h"
#include "join/collective_kind.h"

namespace plasmient::verdict {

using join::CollectiveKind;

// An op of a straggler that took longer than the same op (name and Input Dims) on the other ranks
// in the same steps (docs/fixes.md, "A named straggler and its slow ops").
struct SlowOp {
  std::string op;                // "" for kernels launched under no op: `kernel` names them
  std::string shapes;            // its Input Dims; "" when not recorded
  std::string kernel;            // its kernel with the most time on the straggler
  std::int64_t steps = 0;        // steps in which other ranks ran it too
  double rank_s = 0;             // its time in those steps on the straggler
  double median_s = 0;           // Σ over those steps of the median other rank's time
  double excess_s = 0;           // Σ over those steps of the straggler's time beyond the median's
  double share_of_lateness = 0;  // excess over the straggler's lateness, at most 1
};

struct Straggler {
  std::int64_t rank = -1;
  double caused_wait_s = 0;
  double capacity_fraction = 0;          // caused_wait_s / Σ over ranks of window length
  std::optional<CollectiveKind> kind;    // the collective it most often held up, when any
  std::vector<std::int64_t> late_steps;  // steps in which it caused the most wait
  std::int64_t steps = 0;                // steps with a matched collective of its
  std::int64_t late_collectives = 0, collectives = 0;
  double mean_late_s = 0;  // its arrival minus the others' median arrival, when last
  // Its ops that ran longer than on the other ranks, by excess time (set by the cluster stage
  // when the ranks' verdicts carry op times); empty when none explains its lateness.
  std::vector<SlowOp> slow_ops;
  // Its lateness (Σ over the collectives it arrived last at of its arrival minus the others'
  // median) split by cause (docs/cluster.md): its step began late (host, input pipeline, the
  // previous step's tail, outside the trace), or its work since the step began took longer.
  double late_start_s = 0, slow_work_s = 0;
  std::string cause;             // "late_start" or "slow_work": the larger part
  double confidence = 0;         // share of its late collectives the cause holds at × n/(n+1), n steps
  std::int64_t cause_steps = 0;  // steps (or collectives, without step numbers) where the cause holds
  double lateness_s() const { return mean_late_s * static_cast<double>(late_collectives); }
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
  double link_fraction = 0;  // bus bandwidth over --link-bandwidth-gbps
  double excess_s = 0;       // transfer_s beyond what the link peak needs
};

struct PipelineStage {
  std::int64_t rank = -1;
  std::int64_t pipeline = 0;           // which send/recv chain (data-parallel replicas have several)
  std::int64_t stage = 0, stages = 0;  // position in the chain, S
  std::int64_t microbatches = 0;       // M: forward sends per step on the chain's links; 0 unknown
  double ideal_bubble = -1;            // (S−1)/(M+S−1), −1 when M is unknown
};

}  // namespace plasmient::verdict
