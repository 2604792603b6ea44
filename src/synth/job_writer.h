// plasmient synth: writes a job's per-rank traces (Kineto JSON or native files) and its truth.json.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/result.h"
#include "synth/synth_config.h"

namespace plasmient::synth {

struct Progress {
  // Called after each rank's trace is written: (ranks done, ranks in the job).
  std::function<void(std::int64_t, std::int64_t)> on_rank;
  // Filled in by WriteJob.
  std::int64_t trace_bytes = 0;  // bytes of all rank traces (JSON uncompressed; native as written)
  std::int64_t gpu_activities = 0;
};

// File name of rank r's trace: rank-<r>.pt.trace.json, .json.gz with gzip; native: the agent's
// whole-run name, plasmient.rank<r>.<host>.<pid>.pltrace.
std::string RankFileName(const SynthConfig& config, int rank);
// The trace of rank `rank`'s graph capture, beside its replay trace (HasCaptureTrace scenarios).
std::string CaptureFileName(const SynthConfig& config, int rank);

// Simulates the job (cross-rank communication first, then one rank at a time) and writes
// RankFileName(config, r) (or a windowed rank's files) and truth.json into out_dir (created if
// missing).
Status WriteJob(const SynthConfig& config, const std::string& out_dir, Progress* progress);

}  // namespace plasmient::synth
