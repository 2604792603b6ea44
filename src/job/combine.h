// A job's ranks into the job verdict: capacity-weighted figures, merged top lists, fixes and the
// bill (job/bill.h).
#pragma once

#include <vector>

#include "verdict/options.h"
#include "verdict/verdict.h"

namespace plasmient::job {

verdict::JobVerdict CombineRanks(std::vector<verdict::RankVerdict> ranks,
                                 const verdict::AnalyzeOptions& options);

}  // namespace plasmient::job
