// The program facts the fixes are chosen by (docs/fixes.md).
#pragma once

#include "join/join.h"
#include "model/trace.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Reads one rank's evidence: its ops and API calls, and the GPU activities in the window.
// The graph launches, captures and instantiations the join found (CollectEvidence counts them too).
void CountGraphLaunches(const join::GraphSummary& summary, Evidence& evidence);

Evidence CollectEvidence(const model::Trace& trace, const join::Joined& joined, const ActivityFacts& facts);

}  // namespace plasmient::verdict
