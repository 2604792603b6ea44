// The program facts the fixes are chosen by (docs/fixes.md).
#pragma once

#include <vector>

#include "join/join.h"
#include "model/trace.h"
#include "verdict/kernel_costs.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Reads one rank's evidence; `kept` selects the GPU activities in the window.
Evidence CollectEvidence(const model::Trace& trace, const join::Joined& joined, const std::vector<char>& kept,
                         const KernelCosts& costs);

}  // namespace plasmient::verdict
