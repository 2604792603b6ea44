// The levers every recorded analysis is projected under (docs/fleet.md, "Levers"), so that
// `plasmient fleet --top jobs --by recoverable-gpu-hours --lever …` can rank jobs by the
// GPU-hours a change would free. Projected here, while the job's per-activity tables are in
// memory; the store only writes each outcome as a row (store/job_rows.h).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"
#include "whatif/projection.h"

namespace plasmient::whatif {

// A lever as the store names it: "overlap-comm", "cuda-graphs", "batch-scale" (value K) or
// "microbatches" (value M); value 0 for the flags.
struct LeverKey {
  std::string name;
  double value = 0;
};

// The batch scales every analysis is projected at.
inline constexpr double kStoredBatchScales[] = {2, 4, 8};

// Parses a lever's words: "overlap-comm", "cuda-graphs", "batch-scale K", "microbatches M";
// errors name `flag`.
Result<LeverKey> ParseLever(std::span<const std::string> words, std::string_view flag = "--lever");

// Parses `bill --whatif`'s list: "overlap-comm,cuda-graphs,batch-scale=4,microbatches=16", each item
// as ParseLever reads it (NAME or NAME=VALUE), in the order given, repeats dropped.
Result<std::vector<LeverKey>> ParseLeverList(std::string_view text, std::string_view flag);

// The lever as ParseLeverList reads it: "overlap-comm", "batch-scale=4".
std::string LeverLabel(const LeverKey& lever);

// One stored lever's projection of the job.
struct LeverOutcome {
  LeverKey key;
  Projection projection;
  bool out_of_range = false;  // a warning says the projection leaves the trusted range
};

// The stored levers' projections: overlap-comm, cuda-graphs, each stored batch scale and, for a
// pipeline with a known microbatch count M, microbatches 2M. A lever that cannot apply is left
// out; none when the ranks keep no activity tables or the window is empty.
std::vector<LeverOutcome> ProjectStoredLevers(const verdict::JobVerdict& job);

}  // namespace plasmient::whatif
