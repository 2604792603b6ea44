// One job's traces through the same path as `plasmient analyze`: read each rank, AnalyzeRank,
// CombineRanks. Fails on unreadable input and when no rank has GPU activity.
#pragma once

#include <filesystem>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"
#include "verdict/analyze.h"

namespace plasmient::fleet {

Result<verdict::JobVerdict> AnalyzeJobFiles(const std::vector<std::filesystem::path>& files,
                                            const verdict::AnalyzeOptions& options,
                                            const ingest::OpenRules& rules = {});

}  // namespace plasmient::fleet
