// Real-looking names and launch geometry for the kernels, and the shape arguments of the
// ops that launch them, as PyTorch's profiler records them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "synth/gpu_table.h"
#include "synth/rank_program.h"

namespace plasmient::synth {

std::string_view KernelName(const Item& item, const GpuSpec& gpu);
// The innermost op (the one whose External id the kernel carries); empty for none.
std::string_view LaunchingOpName(OpKind kind);
// "Collective name" of a communication item.
std::string_view CollectiveName(OpKind kind);

struct LaunchGeometry {
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::array<std::int64_t, 3> block{128, 1, 1};
  int registers_per_thread = 32;
  int shared_memory = 0;
};
LaunchGeometry Geometry(const Item& item);

// Appends `"Input Dims": [...], "Input type": [...], "Concrete Inputs": [...]` for the
// launching op (nothing for ops that record no shapes). seq_len splits a linear's tokens
// into [batch, seq, K] when they divide.
void AppendShapeArgs(fmt::memory_buffer& out, const Item& item, std::int64_t seq_len);

}  // namespace plasmient::synth
