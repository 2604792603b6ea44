// A rank's run window in time buckets: the share of each bucket with a kernel resident
// (utilization) and its useful share (achieved fraction of peak). The Perfetto counters draw it.
#pragma once

#include <vector>

#include "base/time_units.h"
#include "model/trace.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// The buckets reports draw and read (the Perfetto counters, `plasmient explain`): the run window
// cut from its start into 1 ms buckets, widened so that a rank has at most this many.
inline constexpr TimeNs kTimelineBucketNs = kNsPerMs;
inline constexpr std::size_t kTimelineMaxBuckets = 4000;

struct TimelineBucket {
  TimeNs start_ns = 0, end_ns = 0;
  double utilization = 0;  // of the bucket, some kernel resident
  double achieved = 0;     // of the bucket, useful time (each kernel's spread evenly over its duration)
};

// Buckets of `bucket_ns`, widened so that the run window holds at most `max_buckets`.
std::vector<TimelineBucket> Timeline(const model::Trace& t, const ActivityFacts& facts, const Figures& run,
                                     TimeNs bucket_ns, std::size_t max_buckets);

// The buckets merged `group` at a time, in order (the last merge may hold fewer): each spans its
// buckets and holds the time-weighted mean of their utilization and achieved fraction. What a
// chart narrower than the buckets draws.
std::vector<TimelineBucket> MergeBuckets(const std::vector<TimelineBucket>& buckets, std::size_t group);

}  // namespace plasmient::verdict
