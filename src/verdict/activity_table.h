// One rank's GPU activities as the verdict priced them, kept past the trace (docs/what-if.md):
// built by AnalyzeRank from its facts table while the trace is in memory, when
// AnalyzeOptions::keep_activities asks (what-if, the report's what-if panel, the store's lever
// rows), and held by the rank's verdict (RankVerdict::activities), read-only, by every consumer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/time_units.h"
#include "join/join.h"
#include "verdict/options.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

struct ActivityRow {
  TimeNs start_ns = 0, end_ns = 0;
  TimeNs launch_ns = kNoTime;  // its launch call's start; kNoTime when it has none
  std::int32_t stream = 0;
  join::ActivityClass cls = join::ActivityClass::kCompute;
  double flops = -1, bytes = -1;  // as the verdict priced it; -1 unknown
  double weight_bytes = 0;        // of bytes, those that do not grow with the batch
  double peak_flops_per_s = 0;    // of its dtype (the facts table's): the roof it is timed against
  bool heavy = false;             // priced by a GEMM, convolution or attention model
  bool attention = false;         // priced by an attention model: its bytes are the KV cache in decode
  bool backward = false;          // launched under autograd's backward pass
  join::StepRowId step;           // the rank's ProfilerStep that launched it (join's steps), or none
  std::int32_t name = -1;         // index into ActivityTable::names
  // The batch its pricing op's inputs show: an attention query [B, H, L, D] or a linear's
  // x [B, S, K]; -1 when they show none (a 2-D GEMM cannot tell the batch from the tokens).
  std::int64_t batch = -1;
  Loss loss = Loss::kComputeInefficiency;  // where its lost time went

  TimeNs dur_ns() const { return end_ns - start_ns; }
  bool compute() const { return cls == join::ActivityClass::kCompute; }
};

// An interval in which the host waited for the GPU (join::IsHostSync).
struct HostWait {
  TimeNs start_ns = 0, end_ns = 0;
};

struct ActivityTable {
  std::int64_t rank = -1;
  double peak_flops_per_s = 0;  // P of the rank's window: useful time is FLOPs / P
  double bandwidth_bytes_per_s = 0;
  double memory_bytes = 0;         // the device's memory; 0 when unknown
  double graph_launches = 0;       // the trace already replays CUDA graphs
  std::int64_t steps = 0;          // ProfilerSteps in the window
  std::vector<ActivityRow> rows;   // the verdict's kept activities, by start
  std::vector<std::string> names;  // kernel names the rows index
  std::vector<HostWait> waits;     // by start
  Figures current;                 // the verdict's run figures
};

// The table of the rank `detail` holds (its kept activities, by start, and its host waits).
ActivityTable BuildActivityTable(const RankDetail& detail);

}  // namespace plasmient::verdict
