// Warm-up recognition: whether a window shows the run's first iterations, not its steady state
// (docs/verdict.md, "Warm-up"). Read from the evidence, never from the trace's name or step numbers:
// leading steps that ran much slower than the later ones, or warm-up work (compilation, module
// loading, graph capture) holding the GPU idle.
#pragma once

#include <cstddef>
#include <span>

#include "verdict/verdict.h"

namespace plasmient::verdict {

// A leading step counts as warm-up when it ran longer than this many times the later steps' median.
inline constexpr double kWarmUpStepRatio = 1.5;
// The step basis needs at least this many steps on a rank: one slow step among two says little.
inline constexpr std::size_t kWarmUpMinSteps = 3;
// Compile and graph-capture idle of at least this share of the capacity make the window a warm-up.
inline constexpr double kWarmUpMinShare = 0.10;

// The leading steps of one rank that each ran slower than kWarmUpStepRatio × the median of the
// steps after it (the last step left out while two others remain: it ends at its last activity,
// unless `last_complete`: periods between two starts, as Iterations' are, are all whole);
// at most half of its steps, none below kWarmUpMinSteps; and the steady steps' median in seconds.
struct SlowLeadingSteps {
  std::size_t count = 0;
  double reference_s = 0;
};
SlowLeadingSteps LeadingSlowSteps(std::span<const StepFigures> steps, bool last_complete = false);

// job.warm_up from the ranks' steps and the host-idle causes; BuildFixes calls it.
WarmUp DetectWarmUp(const JobVerdict& job);

}  // namespace plasmient::verdict
