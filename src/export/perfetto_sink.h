// The vertical trace as Chrome-trace JSON, which Perfetto UI and chrome://tracing open: per rank a
// process, tracks for the cluster (collectives), the model (steps, annotations), ops, kernels per
// stream, counters (utilization, achieved % of peak, device samples), and flow arrows op → kernel.
//
// The sink is a verdict::RankObserver: AnalyzeRank hands it each rank's per-activity detail and
// the rank's events leave memory before the next rank is read. Clock offsets per rank come from
// the cluster layer, which knows them only after every rank is analyzed, so by default each
// rank's events are spooled to a temporary file beside the output (one line per event, its
// timestamp kept apart) and written out by Finish() with the offsets applied. When the offsets
// are known up front (PerfettoOptions::clock_offset_s), events go straight to the output.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/output_file.h"
#include "base/result.h"
#include "export/perfetto_tracks.h"
#include "verdict/analyze.h"
#include "verdict/timeline.h"

namespace plasmient::exporting {

struct PerfettoOptions {
  std::string path;
  // Keep only the N steps with the lowest achieved fraction (0 keeps all). Spooled: the same
  // step numbers on every rank, ranked by their capacity-weighted achieved fraction over ranks;
  // direct: each rank's own N worst. Events outside any step are dropped when N > 0.
  std::size_t worst_steps = 0;
  // Each rank's clock minus the reference clock, in seconds (RankVerdict::clock_offset_s from the
  // cluster layer), subtracted from its timestamps; keyed by pid (the rank). Known before the
  // first rank: events stream straight to the output.
  std::optional<std::unordered_map<std::int64_t, double>> clock_offset_s;
  // Counter bucket width; widened so that no rank gets more than max_buckets buckets.
  TimeNs bucket_ns = verdict::kTimelineBucketNs;
  std::size_t max_buckets = verdict::kTimelineMaxBuckets;
};

struct PerfettoStats {
  std::int64_t events = 0;               // written to the output
  std::int64_t dropped = 0;              // left out by worst_steps
  std::int64_t bytes = 0;                // output size
  std::vector<std::int64_t> kept_steps;  // spooled mode: the steps kept, when worst_steps > 0
};

class PerfettoSink final : public verdict::RankObserver {
 public:
  // Opens the output (and the spool); fails with a one-line message naming the path.
  static Result<std::unique_ptr<PerfettoSink>> Create(PerfettoOptions options);
  ~PerfettoSink() override;

  void OnRank(const verdict::RankDetail& detail) override;

  // Completes the file. `clock_offset_s` (by rank, as in PerfettoOptions) applies to spooled
  // events; ranks it does not name keep their own clock. Returns the first write error, if any.
  Result<PerfettoStats> Finish(const std::unordered_map<std::int64_t, double>& clock_offset_s = {});

  struct Line;  // one event: its step, timestamp and the JSON text after the timestamp

 private:
  explicit PerfettoSink(PerfettoOptions options);
  void Emit(const Line& line);
  void WriteEvent(std::int64_t pid, TimeNs ts_ns, std::string_view rest);
  void Flush(std::FILE* f, std::string& buffer);

  PerfettoOptions options_;
  std::string spool_path_;
  std::optional<OutputFile> out_file_;  // put at the path only once the trace is whole
  std::FILE* out_ = nullptr;            // out_file_'s
  std::FILE* spool_ = nullptr;
  std::string out_buffer_, spool_buffer_;
  bool first_event_ = true;
  bool write_failed_ = false;
  std::optional<TimeNs> origin_ns_;  // direct mode: the first rank's earliest event
  std::int64_t ranks_seen_ = 0;
  // Spooled mode: per step number, the ranks' figures added up, for the job-wide worst steps.
  std::unordered_map<std::int64_t, verdict::Figures> step_figures_;
  std::unordered_map<std::int64_t, TimeNs> rank_first_ns_;  // spooled mode: per pid, earliest event
  PerfettoStats stats_;
};

}  // namespace plasmient::exporting
