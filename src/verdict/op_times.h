// Each rank's heaviest ops with their compute-kernel time per step (verdict.h, OpStepTimes): the
// cluster stage compares them across ranks to name a straggler's slow ops (docs/fixes.md).
#pragma once

#include <vector>

#include "model/trace.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// The kept compute kernels of the window grouped by the innermost op that launched them (name and
// Input Dims; a kernel under no op by its own name), per step; the kOpStepTimesKept heaviest.
std::vector<OpStepTimes> CollectOpTimes(const model::Trace& trace, const ActivityFacts& facts);

}  // namespace plasmient::verdict
