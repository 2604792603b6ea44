// Whether traces given together are one job, by what they say about themselves (docs/cluster.md,
// "Inputs that are not one job"): world size, ranks, device, run id, backend, process groups and
// the collective signature. Clock offsets and capture times are never a criterion where step or
// sequence numbers say which steps a trace holds.
#pragma once

#include <string>
#include <vector>

#include "verdict/verdict.h"

namespace plasmient::cluster {

// One line per disagreement, naming the files; empty when the inputs may be one job.
std::vector<std::string> NotOneJob(const std::vector<verdict::RankVerdict>& ranks);

// The process groups a trace's pg_config (minified JSON) declares: name → size. Empty when the
// text is absent or not the list of groups Kineto writes.
std::vector<std::pair<std::string, std::int64_t>> ProcessGroupSizes(const std::string& pg_config);

}  // namespace plasmient::cluster
