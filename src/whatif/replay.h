// The timeline replayed with new kernel durations (docs/what-if.md, "The timeline"): each
// activity starts when both its launch (plus launch latency) and the previous activity of its
// stream (plus the gap between kernels) allow; the host's launches move with its waits on the GPU.
#pragma once

#include <span>
#include <vector>

#include "base/time_units.h"
#include "whatif/activity_table.h"

namespace plasmient::whatif {

struct ReplayOptions {
  // CUDA graphs: host gaps between consecutive launches below this are launch overhead that a
  // graph replay removes; longer ones (data loading, scheduling) stay.
  TimeNs graph_gap_below_ns = 0;  // 0: graphs off
};

struct ReplayedActivity {
  TimeNs start_ns = 0, end_ns = 0;
};

// rows: by start; dur_ns: the new duration of each row. Without any change (same durations,
// graphs off) every activity comes back where it was.
std::vector<ReplayedActivity> Replay(std::span<const ActivityRow> rows, std::span<const TimeNs> dur_ns,
                                     std::span<const HostWait> waits, const ReplayOptions& options);

}  // namespace plasmient::whatif
