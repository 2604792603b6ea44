// The model layer of the verdict: every GPU activity's GPU time, useful time and loss (the
// sweep's numbers, unchanged) rolled up the module tree and by module type (docs/layers.md).
#pragma once

#include <span>
#include <vector>

#include "join/join.h"
#include "model/trace.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Per GpuActivities row: what the run-level sweep charged it.
struct ActivityLedger {
  const std::vector<char>& kept;
  const std::vector<double>& share_ns;   // its share of the window (compute share or exposed time)
  const std::vector<double>& useful_ns;  // its useful time at peak
  const std::vector<Loss>& loss;         // where the rest went
  const std::vector<double>& flops;      // modeled FLOPs; <= 0 when none
};

inline constexpr std::size_t kLayerTopKernels = 3;

// One rank: the tree and the types; window_s is the rank's wall time.
Layers RollUpLayers(const model::Trace& trace, const join::Joined& joined, const ActivityLedger& ledger,
                    double window_s);

// The job: nodes merged by path, types by name, windows summed.
Layers MergeLayers(std::span<const RankVerdict> ranks);

}  // namespace plasmient::verdict
