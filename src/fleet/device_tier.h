// The agent's duty-cycled files in serve (docs/agent.md, "Windows"): a kernel window is analyzed
// like any trace and also carries the device tier's activity over its window W, which calibrates
// the estimate; a samples file (between windows) has no kernels and so no verdict, only the
// device tier. Both become metrics samples (metrics.h, SampleKind).
#pragma once

#include <filesystem>
#include <vector>

#include "base/result.h"
#include "fleet/metrics.h"
#include "ingest/input_file.h"
#include "model/trace.h"

namespace plasmient::fleet {

// Mean SM, tensor and DRAM activity (ratios) of the trace's device-tier samples stamped in
// [from, to) — all of them when `from` is kNoTime — into `out`; -1 where there is none.
void MeanDeviceActivity(const model::Trace& trace, TimeNs from, TimeNs to, RankSample& out);

// What an entry is, from its files' headers: kTrace unless every file is the agent's native
// kernel window (kWindow) or samples file (kDeviceTier).
SampleKind EntryKind(const std::vector<std::filesystem::path>& files, const ingest::OpenRules& rules);

// kDeviceTier entries: one sample per file (its rank, device and mean device activity).
Result<std::vector<RankSample>> DeviceTierSamples(const std::vector<std::filesystem::path>& files,
                                                  const ingest::OpenRules& rules);

// kWindow entries: marks the analysis's samples as windows and adds each rank's device activity
// over its window W (the span of its GPU activity).
Status AddWindowActivity(const std::vector<std::filesystem::path>& files, const ingest::OpenRules& rules,
                         std::vector<RankSample>& samples);

}  // namespace plasmient::fleet
