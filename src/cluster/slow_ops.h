// A straggler's slow ops: its ops that ran longer than the same ops (name and Input Dims) on the
// other ranks in the same steps, read from the ranks' op times (docs/fixes.md, "A named
// straggler and its slow ops").
#pragma once

#include <span>
#include <vector>

#include "verdict/verdict.h"

namespace plasmient::cluster {

// The straggler's ops whose time in the steps the other ranks also ran them is at least
// kSlowOpMinRatio × the median other rank's, the slowest of all ranks in most of those steps,
// beyond the other ranks' spread by more than that spread, and
// whose excess explains at least kSlowOpMinShareOfLateness of its lateness; by excess (at most
// the ops a rank keeps times of, kOpStepTimesKept). Empty when no rank
// carries op times, or when its ops ran no slower (its lateness lies elsewhere: host, input).
std::vector<verdict::SlowOp> SlowOpsOf(std::span<const verdict::RankVerdict* const> ranks,
                                       const verdict::Straggler& straggler);

}  // namespace plasmient::cluster
