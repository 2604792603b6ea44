// What-if projections (docs/what-if.md): the verdict of the same job under a change — a larger
// batch, communication overlapped with backward, more pipeline microbatches, CUDA graphs —
// from each activity's measured time, FLOPs, bytes and roofline.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"

namespace plasmient::whatif {

// The activity tables a projection reads, one per rank: those the job's ranks keep (TablesOf), or
// a test's.
using Tables = std::span<const RankTable* const>;
std::vector<const RankTable*> TablesOf(const verdict::JobVerdict& job);
std::vector<const RankTable*> TablesOf(std::span<const RankTable> tables);

struct Levers {
  double batch_scale = 1;         // --batch-scale K: every sequence batch K times larger
  bool overlap_comm = false;      // --overlap-comm
  std::int64_t microbatches = 0;  // --microbatches M: pipeline microbatches per step; 0 unchanged
  bool cuda_graphs = false;       // --cuda-graphs

  // --batch N: the target batch; Project reads the current one from the shapes (ReadBatch) and
  // sets batch_scale to N over it. 0: not asked.
  std::int64_t batch = 0;
  std::int64_t batch_read = 0;  // the batch read from the trace, when --batch was given

  bool any() const { return batch_scale != 1 || overlap_comm || microbatches > 0 || cuda_graphs; }
};

// The job's batch as its shapes show it: the leading dimension of the attention queries and
// linear inputs (ActivityRow::batch), the value most of those kernels share. Fails, naming
// --batch-scale, when no kernel shows one.
Result<std::int64_t> ReadBatch(Tables tables);

// Checks ranges; one line naming the bad lever.
Status Validate(const Levers& levers);

// A kernel (by name) whose bound the change moves across the ridge point.
struct BoundChange {
  std::string kernel;
  std::string from, to;    // "memory", "compute"
  std::int64_t calls = 0;  // calls that move
  double projected_s = 0;  // their projected time
};

struct Side {
  verdict::Figures figures;        // the job: ranks capacity-weighted
  std::optional<double> headroom;  // wall / useful; none when nothing useful was modeled
  double step_s = 0;               // mean step wall time over ranks; 0 without steps
  double memory_bound_share = 0;   // of modeled compute-kernel time, memory-bound kernels
};

// The prefix of a warning that the projection leaves the range its model is trusted in.
inline constexpr std::string_view kOutOfRangeWarning = "outside the trusted range";

struct Projection {
  Levers levers;
  Side current, projected;
  double work_scale = 1;       // work per step, projected over current (samples or tokens)
  double throughput_gain = 1;  // work per second, projected over current
  // GPU-seconds of the current window the change frees for the same work: current wall × (1 − 1 /
  // throughput_gain), over all ranks; negative when the change makes the work slower.
  double recoverable_gpu_s = 0;
  std::vector<BoundChange> bound_changes;  // largest projected time first, bounded
  std::vector<std::string> warnings;       // where the projection leaves its trusted range
  // The verdict's judgement (verdict::Judgement): when false, both sides' achieved fractions are
  // lower bounds, and their headroom and waste are unknown (none, and the sinks say so).
  bool judgeable = true;
  std::string achieved_is = "measured";  // the verdict's judgement.achieved_is
};

// The projection of a job whose ranks' tables are `tables` and whose verdict is `job`.
// Fails when a lever cannot apply (--microbatches without a pipeline in the trace).
Result<Projection> Project(Tables tables, const verdict::JobVerdict& job, const Levers& levers);
// The same over the tables the job's ranks keep (analyzed with AnalyzeOptions::keep_activities).
Result<Projection> Project(const verdict::JobVerdict& job, const Levers& levers);
// The same over tables given by value (tests build them by hand).
Result<Projection> Project(std::span<const RankTable> tables, const verdict::JobVerdict& job,
                           const Levers& levers);

}  // namespace plasmient::whatif
