// A step of the application is a range named "ProfilerStep#N" (PyTorch's profiler; as an NVTX
// range too), in every source: Kineto JSON, Nsight NVTX, the agent's step clock.
#pragma once

#include <string_view>

namespace plasmient {

inline constexpr std::string_view kStepRangePrefix = "ProfilerStep#";

}  // namespace plasmient
