// Time is int64 nanoseconds everywhere; names carry the unit (start_ns, dur_ns).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace plasmient {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;
inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

// The one ns→s conversion; the double form is for sums and shares of durations.
inline constexpr double NsToSeconds(TimeNs ns) { return static_cast<double>(ns) * 1e-9; }
inline constexpr double NsToSeconds(double ns) { return ns * 1e-9; }
// Seconds to double nanoseconds (an ideal duration, a share's useful part).
inline constexpr double SecondsToNs(double s) { return s * 1e9; }
// Seconds to the nearest nanosecond (a clock offset read back from a verdict).
inline TimeNs SecondsToNearestNs(double s) { return static_cast<TimeNs>(std::llround(s * 1e9)); }

}  // namespace plasmient
