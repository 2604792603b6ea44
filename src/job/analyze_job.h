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

namespace plasmient::job {

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

// The one rule that shares cores between analyses run at once: `cores` (0: the machine's) split
// evenly among `at_once`, at least one each. serve splits the node among its workers
// (AnalyzeOptions::cores); a job splits its share among the ranks it reads at once.
std::size_t CoresEach(std::size_t at_once, std::size_t cores = 0);

// Threads parsing each Kineto trace of a job of `inputs` files: its cores among the ranks read at
// once (--jobs, never more than the inputs). 0 when one trace has the whole machine: the reader's
// default (one per core, up to its cap).
std::size_t ParseThreadsEach(const verdict::AnalyzeOptions& options, std::size_t inputs);

// AnalyzeInputs, failing also when no rank has GPU activity or device-tier samples (nothing to
// record); ranks with device-tier samples only have no verdict but their RankVerdict::device_tier.
Result<verdict::JobVerdict> AnalyzeJobFiles(const std::vector<std::filesystem::path>& files,
                                            const verdict::AnalyzeOptions& options,
                                            const ingest::OpenRules& rules = {});

}  // namespace plasmient::job
