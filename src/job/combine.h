// A job's ranks into the job verdict, assembled once and never written after: the cluster layer's
// reading of the ranks (cluster/cluster_verdict.h), capacity-weighted figures on the reference
// rank's clock, merged top lists, the fixes of every loss and straggler, and the bill (job/bill.h).
#pragma once

#include <cstdint>
#include <vector>

#include "verdict/options.h"
#include "verdict/verdict.h"

namespace plasmient::job {

// Inputs the job's reading set aside, for its data quality.
struct SetAside {
  std::int64_t repeated = 0;  // the same trace given again
  std::int64_t skipped = 0;   // files in a folder that are no trace
};

verdict::JobVerdict CombineRanks(std::vector<verdict::RankVerdict> ranks,
                                 const verdict::AnalyzeOptions& options, const SetAside& set_aside = {});

}  // namespace plasmient::job
