// The sweep: cuts a window at every activity start and end and gives each elementary slice to
// exactly one category (docs/verdict.md, "The sweep"). Concurrent compute kernels split a slice.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/time_units.h"
#include "join/join.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

inline constexpr std::size_t kActivityClasses = 4;             // join::ActivityClass values
inline constexpr std::size_t kIdleStretch = kActivityClasses;  // SweepResult::longest_stretch's idle entry

struct SweepActivity {
  TimeNs start_ns = 0, end_ns = 0;
  join::ActivityClass cls = join::ActivityClass::kCompute;
  std::int32_t id = -1;  // caller's index, echoed in shares
};

struct SweepResult {
  TimeNs start_ns = 0, end_ns = 0;
  double compute_ns = 0;                             // slices with a compute kernel resident
  double exposed_communication_ns = 0;               // only collective kernels
  double pipeline_bubble_ns = 0;                     // only p2p kernels
  double data_movement_ns = 0;                       // only memcpy/memset
  double idle_ns = 0;                                // nothing resident
  std::vector<std::pair<TimeNs, TimeNs>> idle_gaps;  // the idle slices, [start, end) by start
  double kernel_union_ns = 0;                        // any kernel resident (utilization)
  double busy_union_ns = 0;                          // any activity resident
  double compute_union_ns = 0;
  double communication_union_ns = 0;       // collective or p2p resident
  double communication_overlapped_ns = 0;  // communication while compute is resident
  // Per activity: (id, ns of the slices it was charged for). A compute kernel shares compute
  // slices with the compute kernels resident beside it; a communication or memory activity is
  // charged only for slices its class decided (its exposed time), split the same way.
  std::vector<std::pair<std::int32_t, double>> shares;
  // Per deciding class (by ActivityClass value, idle last): the longest stretch of consecutive
  // slices it decided, [start, end); the earliest of equal ones; none when it decided no slice.
  std::array<std::optional<std::pair<TimeNs, TimeNs>>, kActivityClasses + 1> longest_stretch;
};

// The class that decides an elementary slice, given how many activities of each class are
// resident (by ActivityClass value): compute over collective over P2P over memory; nullopt when
// nothing is resident (the slice is idle).
std::optional<join::ActivityClass> DecidingClass(std::span<const int, kActivityClasses> resident);
// The loss a slice decided by a non-compute class goes to (exposed communication, pipeline bubble,
// data movement); a compute slice's loss is its kernels' (kComputeInefficiency is returned).
Loss LossOfSlice(join::ActivityClass decided);

// Activities are clipped to [window_start, window_end). The categories sum to the window length.
SweepResult Sweep(std::span<const SweepActivity> activities, TimeNs window_start, TimeNs window_end);

// A window's figures from its sweep (docs/verdict.md, "The sweep"): each compute activity k's
// share is useful up to useful_ns(k, share), the rest of it goes to loss[k]; exposed
// communication, pipeline bubble, data movement and idle come from the sweep's own categories.
Figures ChargeSweep(const SweepResult& sweep, std::span<const Loss> loss,
                    const std::function<double(std::int32_t k, double share_ns)>& useful_ns);

}  // namespace plasmient::verdict
