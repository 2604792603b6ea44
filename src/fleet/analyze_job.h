// One job's traces through the same path for `plasmient analyze`, `diff` and `serve`: read each
// input, set aside repeats and files that are no trace, AnalyzeRank, refuse inputs that cannot
// be one job (docs/cluster.md, "One job"), CombineRanks, and the cluster layer over the ranks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"
#include "verdict/analyze.h"

namespace plasmient::fleet {

// What a caller sees of the reading; every member may be empty.
struct JobReadHooks {
  // Called before input i of n is read; returns its progress callback (bytes done, total).
  std::function<std::function<void(std::int64_t, std::int64_t)>(const std::string& path, std::size_t i,
                                                                std::size_t n)>
      begin;
  std::function<void()> done;  // after each input is read
  // After each input is read whole: what it was, and the seconds reading took.
  std::function<void(const model::TraceInfo&, double)> read;
  std::function<void(const std::string&)> warn;  // one line per input set aside
};

// Fails on unreadable input and on inputs of different jobs; `rules` say how files are opened.
// `options.workers` inputs are read and analyzed at once; the hooks are called one at a time
// (warnings in input order), and the verdict is the same for any number of workers.
Result<verdict::JobVerdict> AnalyzeInputs(const std::vector<std::filesystem::path>& files,
                                          const verdict::AnalyzeOptions& options,
                                          const JobReadHooks& hooks = {},
                                          const ingest::OpenRules& rules = {});

// AnalyzeInputs, failing also when no rank has GPU activity (nothing to record).
Result<verdict::JobVerdict> AnalyzeJobFiles(const std::vector<std::filesystem::path>& files,
                                            const verdict::AnalyzeOptions& options,
                                            const ingest::OpenRules& rules = {});

}  // namespace plasmient::fleet
