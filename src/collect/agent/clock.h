// The agent's one clock: CLOCK_MONOTONIC in ns (CUPTI's timestamp callback returns it too).
#pragma once

#include <time.h>

#include <cstdint>

namespace plasmient::collect {

inline std::uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::int64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace plasmient::collect
