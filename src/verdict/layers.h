// The model layer of the verdict: every GPU activity's GPU time, useful time and loss (the
// sweep's numbers, unchanged) rolled up the module tree and by module type (docs/layers.md).
#pragma once

#include <array>
#include <span>
#include <unordered_map>
#include <vector>

#include "join/join.h"
#include "model/trace.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

inline constexpr std::size_t kLayerTopKernels = 3;

// "(no module)" and "(backward)": the catch-all nodes and types, not module ranges.
bool IsCatchAllLayer(std::string_view path_or_type);

// One rank: the tree and the types, from each kept activity's row of the facts table (its share,
// useful time, loss and FLOPs); window_s is the rank's wall time.
Layers RollUpLayers(const model::Trace& trace, const join::Joined& joined, const ActivityFacts& facts,
                    double window_s);

// One call of a layer range (a CpuOps row of kind kModule or kAnnotation): the sweep's figures
// of the GPU activities attributed to it or to the ranges nested in it — its backward kernels
// included when they reached it through their forward op (docs/layers.md).
struct RangeFigures {
  double gpu_time_ns = 0, useful_ns = 0;
  std::array<double, kLossCount> loss_ns{};
  std::int64_t kernels = 0;
  double achieved_fraction() const { return gpu_time_ns > 0 ? useful_ns / gpu_time_ns : 0; }
  double loss_fraction(Loss loss) const {
    return gpu_time_ns > 0 ? loss_ns[static_cast<std::size_t>(loss)] / gpu_time_ns : 0;
  }
};
using RangeLedger = std::unordered_map<model::CpuOpRowId, RangeFigures>;  // by layer range (CpuOps row)

RangeLedger RollUpRanges(const model::Trace& trace, const join::Joined& joined, const ActivityFacts& facts);

// The job: nodes merged by path, types by name, windows summed; on up to `threads` threads, with
// the same figures on any number.
Layers MergeLayers(std::span<const RankVerdict> ranks, std::size_t threads = 1);

}  // namespace plasmient::verdict
