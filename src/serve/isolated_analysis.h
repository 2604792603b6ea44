// One spool entry's analysis in a child process under limits, so that no input — one that
// loops, allocates without end or crashes a reader — can stop, starve or kill the daemon. The
// child reads and analyzes the traces, builds the store rows and the metrics samples, writes
// them to a result file and exits; the daemon reads that file back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ingest/input_file.h"
#include "serve/metrics.h"
#include "store/job_rows.h"
#include "verdict/analyze.h"

namespace plasmient::serve {

// Defaults sized for one large job on a GPU node; docs/fleet.md, "Isolation".
struct AnalysisLimits {
  double timeout_s = 900;          // wall time; then the child is killed
  std::int64_t memory_mb = 16384;  // address space the child may add to what it starts with
  std::int64_t cpu_s = 1800;       // CPU time of all its threads together
};

struct AnalysisOutput {
  store::Batch batch;
  std::vector<RankSample> samples;
  JobTops tops;  // the job's top kernels and module types
};

struct AnalysisOutcome {
  // kNoResult: the child could not write its result (a full or read-only disk), not the input's fault.
  enum class Kind { kOk, kFailed, kNoResult, kStopped } kind = Kind::kFailed;
  AnalysisOutput output;  // kOk
  std::string error;      // kFailed, kNoResult: one line, the reason (the input's error, a limit, a signal)
};

// Analyzes `files` (opened as `rules` say) in a child process; `result_file` is where the child
// writes. `stop` is polled every few milliseconds: when it says so the child is killed (kStopped).
AnalysisOutcome AnalyzeIsolated(const std::vector<std::filesystem::path>& files,
                                const verdict::AnalyzeOptions& options, const ingest::OpenRules& rules,
                                const store::JobContext& context, const AnalysisLimits& limits,
                                const std::filesystem::path& result_file, const std::function<bool()>& stop);

}  // namespace plasmient::serve
