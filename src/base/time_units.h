// Time is int64 nanoseconds everywhere; names carry the unit (start_ns, dur_ns).
#pragma once

#include <cstdint>
#include <limits>

namespace plasmient {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;
inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

inline constexpr double NsToSeconds(TimeNs ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace plasmient
