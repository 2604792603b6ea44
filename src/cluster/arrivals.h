// Who arrived when at each collective of one rank: the cluster layer's matching and clock offsets
// read back per collective, for reading one instant (`plasmient explain`, the report's vertical
// trace; docs/explain.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/time_units.h"
#include "join/collective_kind.h"
#include "verdict/verdict.h"

namespace plasmient::cluster {

struct PeerArrival {
  std::int64_t rank = -1;
  TimeNs arrival_ns = 0;  // its kernel's start, on the reference rank's clock
};

// One communication kernel of the rank and its match across the job's ranks.
struct CollectiveArrivals {
  std::string group;
  join::CollectiveKind kind = join::CollectiveKind::kOther;
  std::string kind_text;  // as the trace names it ("allreduce"), else the kernel's name
  std::int64_t seq = -1, step = -1, bytes = -1;
  std::int32_t group_size = -1;
  bool p2p = false;
  TimeNs start_ns = 0, end_ns = 0;    // this rank's kernel, on its own clock
  TimeNs clock_offset_ns = 0;         // this rank's clock minus the reference clock
  std::vector<PeerArrival> arrivals;  // every rank of the match present in the input, by arrival
  std::int64_t last_rank = -1;        // the last to arrive
  TimeNs late_ns = 0;                 // its arrival minus the median of the others' (docs/cluster.md)
  bool matched = false;               // matched on every rank of its group, clocks aligned
};

// The rank's communication kernels, by start; those matched carry every member's arrival.
// Reads RankVerdict::collectives and the clock offsets the cluster reading set (SetRankFigures).
std::vector<CollectiveArrivals> RankArrivals(const verdict::JobVerdict& job, std::int64_t rank);

// The communication kernel of `arrivals` (RankArrivals) resident at t, preferring one matched
// across ranks; nullopt when none is.
std::optional<CollectiveArrivals> CollectiveAt(const std::vector<CollectiveArrivals>& arrivals, TimeNs t);

// A collective as it stands at instant t (on the rank's clock) inside its kernel.
struct InFlight {
  std::vector<std::int64_t> arrived, waiting_for;  // ranks, by arrival
  bool waiting = false;                            // this rank waits: a peer has not arrived by t
  TimeNs waited_ns = 0;                            // t minus this rank's arrival
};
InFlight InFlightAt(const CollectiveArrivals& c, std::int64_t rank, TimeNs t);

}  // namespace plasmient::cluster
