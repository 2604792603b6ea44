// Warm-up recognition: whether a window shows the run's first iterations, not its steady state
// (docs/verdict.md, "Warm-up"). Read from the evidence, never from the trace's name or step numbers:
// leading steps that ran much slower than the later ones (verdict/iterations.h), or warm-up work
// (compilation, module loading, graph capture) holding the GPU idle.
#pragma once

#include "verdict/verdict.h"

namespace plasmient::diagnose {

// Compile and graph-capture idle of at least this share of the capacity make the window a warm-up.
inline constexpr double kWarmUpMinShare = 0.10;

// job.warm_up from the ranks' steps and iterations and the host-idle causes; Diagnose calls it.
verdict::WarmUp DetectWarmUp(const verdict::JobVerdict& job);

}  // namespace plasmient::diagnose
