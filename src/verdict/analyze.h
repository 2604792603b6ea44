// Analysis of one rank's trace into its verdict (the job of ranks: job/combine.h).
#pragma once

#include "base/result.h"
#include "model/trace.h"
#include "verdict/options.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Joins, models and sweeps one rank; the trace is read, never written (its data quality and what
// the analysis adds are the verdict's). Fails only when the options cannot apply (unknown --gpu).
Result<RankVerdict> AnalyzeRank(const model::Trace& trace, const AnalyzeOptions& options);

}  // namespace plasmient::verdict
