// The agent's duty-cycled files in serve (docs/agent.md, "Windows"): a kernel window is analyzed
// like any trace, and its samples are marked as a window's (metrics.h, SampleKind). The device
// tier itself is read from the verdict of any trace (RankVerdict::device_tier), so a native file's
// NVML samples and an Nsight Systems export's GPU_METRICS take one path.
#pragma once

#include <filesystem>
#include <vector>

#include "ingest/input_file.h"

namespace plasmient::serve {

// Whether every file is a kernel window of the agent's duty cycle (by its header), none missing.
bool KernelWindows(const std::vector<std::filesystem::path>& files, const ingest::OpenRules& rules);

}  // namespace plasmient::serve
