// Fixes from evidence: one rule per loss picks the advice by what the trace shows about the
// program (docs/fixes.md).
#pragma once

#include "verdict/verdict.h"

namespace plasmient::verdict {

// Fills job.fixes (losses of at least 1% of capacity, largest first) and job.short_fixes
// (every loss) from job.job and job.evidence.
void BuildFixes(JobVerdict& job);

}  // namespace plasmient::verdict
