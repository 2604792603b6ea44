// A rank's iteration structure read from its timeline, and the host costs that happened once,
// early (docs/verdict.md, "Warm-up"). A trace without ProfilerStep marks still repeats itself:
// the DataLoader's __next__, a top module's forward, Optimizer.step, or a kernel, recur once per
// iteration, and between two of their starts the program launches the same GPU work each time.
#pragma once

#include <cstddef>
#include <span>

#include "join/join.h"
#include "model/trace.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

struct ActivityFacts;

// A leading step counts as warm-up when it ran longer than this many times the later steps' median.
inline constexpr double kWarmUpStepRatio = 1.5;
// The step basis needs at least this many steps on a rank: one slow step among two says little.
inline constexpr std::size_t kWarmUpMinSteps = 3;

// The leading steps of one rank that each ran slower than kWarmUpStepRatio × the median of the
// steps after it (the last step left out while two others remain: it ends at its last activity,
// unless `last_complete`: periods between two starts, as Iterations' are, are all whole);
// at most half of its steps, none below kWarmUpMinSteps; and the steady steps' median in seconds.
struct SlowLeadingSteps {
  std::size_t count = 0;
  double reference_s = 0;
};
SlowLeadingSteps LeadingSlowSteps(std::span<const StepFigures> steps, bool last_complete = false);

// A marker needs this many occurrences: kWarmUpMinSteps complete iterations between them.
inline constexpr std::size_t kIterationMinMarkers = 4;
// The GPU activities each steady iteration launches lie within this share of their median, and
// the first launches at least the median less it: an iteration repeats its work (a warm-up adds
// to it: autotuning runs candidate kernels). A range that recurs inside the iteration (a layer's
// op, a microbatch of unequal halves) launches different work between its starts and is no marker.
inline constexpr double kIterationWorkTolerance = 0.10;
// The complete iterations hold at least this share of the window's GPU activities: a range that
// recurs over a small part of the run (an evaluation loop at its end) does not say what the run is.
inline constexpr double kIterationMinCoverage = 0.50;
// A cost is once-early when the steady iterations repeat at most this share of its early idle,
// and its early idle is at least this share of a steady iteration: it makes the first iteration
// longer by more than the jitter of the host's own work between launches.
inline constexpr double kOnceEarlyMaxRecurrence = 0.10;
inline constexpr double kOnceEarlyMinShareOfIteration = 0.10;
// Once-early costs kept per rank (the largest; all of them count in the sum).
inline constexpr std::size_t kOnceEarlyKept = 5;

// The iterations of a rank whose trace marks no steps: of the host ranges that no other range on
// their thread holds (ops, annotations, modules), the name that recurs most often with every
// period between its starts launching the same work (kIterationWorkTolerance) and the periods
// holding most of the window's activities (kIterationMinCoverage); ties go to the name that
// starts first (it opens the iteration; one that closes it leaves the first iteration before its
// first start), then by name. With no such range, the kernels by name, their periods counted by
// the GPU activities that start in them. Not found: `source` empty.
Iterations FindIterations(const model::Trace& trace, const ActivityFacts& facts);

// The once-early host costs of a rank: idle slices (cause and range) before `boundaries_ns[early]`
// (the end of the leading slow iterations, or of the first when none is slow) that the steady
// iterations repeat at most kOnceEarlyMaxRecurrence of, holding at least
// kOnceEarlyMinShareOfIteration of `steady_iteration_s`, with at least two steady iterations to
// say so. Compile and graph capture (counted whole as warm-up causes), the profiler's own work and
// unknown slices (no range names them) are not among them. By idle, largest first.
std::vector<OnceEarlyCost> OnceEarlyCosts(const model::Trace& trace, const HostIdleCauses& idle,
                                          std::span<const TimeNs> boundaries_ns, std::size_t early,
                                          double steady_iteration_s);

// The compilation and graph-capture idle that recurs (RankVerdict::steady_compile_capture_s):
// what the iterations from `early` on hold (boundaries_ns: the iterations' starts), and as much
// per leading iteration at the steady iterations' rate. Only the excess over it is a warm-up's.
double SteadyCompileCaptureSeconds(const HostIdleCauses& idle, std::span<const TimeNs> boundaries_ns,
                                   std::size_t early);

// Fills v.iterations (only when the trace marks no steps), v.once_early and
// v.steady_compile_capture_s, from the steps'
// ranges or the iterations found; v.steps and v.evidence.host_idle must be filled.
void ReadIterations(const model::Trace& trace, const join::Joined& joined, const ActivityFacts& facts,
                    RankVerdict& v);

}  // namespace plasmient::verdict
