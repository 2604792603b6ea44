// The program facts the fixes are chosen by (docs/fixes.md).
#pragma once

#include "join/join.h"
#include "model/trace.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Reads one rank's evidence: its ops and API calls, and the GPU activities in the window.
Evidence CollectEvidence(const model::Trace& trace, const join::Joined& joined, const ActivityFacts& facts);

}  // namespace plasmient::verdict
