// Stray activities (docs/verdict.md, "The window"): activity far outside the bulk of the trace
// is left out of the window and counted, with its GPU time, in the rank's data quality, so that
// one wild timestamp cannot stretch the window and the bill. (Work queued before profiling
// began, the other activity that is not the run's, is marked by the join.)
#pragma once

#include <vector>

#include "model/trace.h"

namespace plasmient::verdict {

// Clears kept[i] for the kept activities on the far side of an idle gap that dwarfs the rest of
// the trace (the thresholds and their reasons are beside the code).
void ExcludeStrayActivities(const model::Trace& trace, std::vector<char>& kept, model::DataQuality& quality);

// Counts, never drops, what the window kept that a bill should warn of: a window over a day
// (long_window) and kernels over an hour (long_kernel).
void FlagLongWindows(const model::Trace& trace, const std::vector<char>& kept, model::DataQuality& quality);

}  // namespace plasmient::verdict
