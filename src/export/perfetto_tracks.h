// One rank's Chrome-trace events, in the vertical trace's layout. perfetto_sink.h decides where
// they go (straight to the file, or a spool until clock offsets are known).
//
// Tracks (threads of the rank's process, top to bottom):
//   cluster · stream S    collective and P2P kernels: kind, group, seq, peers, bytes, bandwidth, wait
//   steps · GPU           each step's GPU window with its figures
//   model · thread T      ProfilerStep, module and annotation ranges on host thread T: path, and
//                         this call's GPU time, achieved % and the seven losses' %
//   ops · thread T        the ATen ops that launched the kept kernels, with their ancestors
//   kernels · stream S    compute kernels and copies: FLOPs, bytes, AI, achieved %, roofline %, bound, loss
// plus process counters ("C" events): utilization %, achieved % of peak per bucket, device samples;
// and flows (ph s → f, cat "launch") from the launching op to each kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "verdict/analyze.h"
#include "verdict/timeline.h"

namespace plasmient::exporting {

inline constexpr std::string_view kPerfettoCounterUtilization = "utilization %";
inline constexpr std::string_view kPerfettoCounterAchieved = "achieved % of peak";

inline constexpr std::int64_t kAnyStep = -2;  // metadata: kept by every step filter
inline constexpr std::int64_t kNoStep = -1;   // outside every step

struct TrackOptions {
  TimeNs bucket_ns = verdict::kTimelineBucketNs;
  std::size_t max_buckets = verdict::kTimelineMaxBuckets;
};

class RankTracks {
 public:
  // (step, ts_ns on the rank's clock or kNoTime for metadata, JSON text after the timestamp)
  using EmitFn = std::function<void(std::int64_t, TimeNs, std::string)>;

  RankTracks(const verdict::RankDetail& detail, std::int64_t pid, TrackOptions options);

  // The earliest timestamp this rank will emit (host ranges can precede the GPU window).
  TimeNs EarliestNs() const;
  void Build(const EmitFn& emit);

 private:
  const verdict::RankDetail& d_;
  std::int64_t pid_;
  TrackOptions options_;
  std::vector<std::int64_t> op_step_;  // per CpuOps row: step of the first kept kernel under it, or kNone
  static constexpr std::int64_t kNone = -3;
};

}  // namespace plasmient::exporting
