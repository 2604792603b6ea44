// One column of the vertical trace: what one rank's device, kernels, ops, model layer, step and
// host were doing at one instant, read from the facts table and the sweep's rule, never
// recomputed (docs/explain.md). `plasmient explain` prints it; the cluster layer adds the
// collective in flight.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "join/join.h"
#include "join/layer_tree.h"
#include "verdict/analyze.h"
#include "verdict/sweep.h"
#include "verdict/timeline.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// One GPU activity resident at the instant: its row of the facts table, with names.
struct ColumnActivity {
  std::int32_t row = -1;  // GpuActivities row
  std::string name;
  std::int32_t device = -1, stream = -1;
  TimeNs start_ns = 0, end_ns = 0;
  join::ActivityClass cls = join::ActivityClass::kCompute;
  bool modeled = false;  // a FLOP or byte model reached it
  double achieved_fraction = 0, roofline_fraction = 0;
  Bound bound = Bound::kCompute;
  Loss loss = Loss::kComputeInefficiency;
  std::string op;     // the op that launched it; "" when none
  std::string layer;  // its model-layer path (docs/layers.md); "" when none
  std::int64_t step = -1;
  std::string launch;                  // its launch call ("cudaLaunchKernel"); "" when none
  TimeNs launch_ns = kNoTime;          // when the launch call started
  std::string collective;              // a communication kernel's collective ("allreduce"); "" when none
  std::int64_t collective_bytes = -1;  // its message bytes, -1 when unknown
};

// A host range running at the instant: an op, annotation, module, step or API call.
struct HostRange {
  std::string name;
  std::string kind;  // "op", "annotation", "module", "step", "api"
  std::int64_t tid = -1;
  TimeNs start_ns = 0, end_ns = 0;
};

// A device-tier counter's latest sample at or before the instant, inside the run window.
struct CounterValue {
  std::string metric;
  double value = 0;
  TimeNs ts_ns = 0;
};

struct Column {
  std::int64_t rank = -1;
  TimeNs t_ns = 0;                                // on the rank's clock
  TimeNs window_start_ns = 0, window_end_ns = 0;  // the rank's run window
  TimelineBucket bucket;                          // the device bucket holding t
  std::vector<CounterValue> counters;
  // The class that decides the instant in the sweep (compute over collective over P2P over
  // memory); nullopt when nothing is resident. `loss` is where the sweep charges it: a non-compute
  // class's loss, host-bound idle, or for compute the loss of the first resident kernel (the focus).
  std::optional<join::ActivityClass> deciding;
  Loss loss = Loss::kHostBoundIdle;
  std::vector<ColumnActivity> resident;  // deciding class first, then by start: the first is the focus
  std::int64_t step = -1;                // the step whose window holds t, -1 outside every step
  std::vector<HostRange> host;           // ranges holding t, innermost (latest start) first
  // Nothing resident: the gap around t, from the end of the previous GPU activity to the start
  // of the next, and the next activity (its launch says what the host was late to issue).
  TimeNs gap_start_ns = kNoTime, gap_end_ns = kNoTime;
  std::optional<ColumnActivity> next;
  // Nothing resident: the cause the verdict's host-bound idle charged t to (HostIdleCauses).
  std::optional<HostCause> idle_cause;

  TimeNs offset_ns() const { return t_ns - window_start_ns; }
};

// The instant to read, as the user names it (docs/explain.md).
struct InstantSpec {
  enum class Kind : std::uint8_t { kOffset, kStep, kWorst } kind = Kind::kOffset;
  TimeNs offset_ns = 0;    // from the window start (kOffset), or from the step's start (kStep)
  std::int64_t step = -1;  // kStep: ProfilerStep#N
};

// The step whose window holds t (step windows tile the run), or -1.
std::int64_t StepAt(const RankVerdict& verdict, TimeNs t);

// The rank's representative instant of `loss`: for a compute loss, the middle of the kernel that
// lost most time to it; otherwise the middle of the longest stretch the sweep of the window
// (`run`) charges to it. kNoTime when the rank has none of that loss. AnalyzeRank keeps them in
// the verdict.
std::array<TimeNs, kLossCount> WorstInstants(const model::Trace& trace, const ActivityFacts& facts,
                                             const SweepResult& run);

// The first fix's instant (docs/explain.md): on the rank with the most of its loss.
struct FixInstant {
  std::int64_t rank = -1;
  TimeNs offset_ns = 0;  // from that rank's window start
};
std::optional<FixInstant> FirstFixInstant(const JobVerdict& job);

// The instant on the rank's clock; kWorst reads `worst_loss` (the job's largest loss). Fails with
// one line naming what exists when the instant is outside the window or the step is unknown.
Result<TimeNs> ResolveInstant(const InstantSpec& spec, const RankDetail& d, Loss worst_loss);

// Rows of an interval table that hold t (start <= t < end), without scanning them all: the rows by
// start, and over that order a tree of the latest end, so a query descends only where some row
// ends after t. Reading every column of a step reads thousands of instants.
class IntervalIndex {
 public:
  void Add(TimeNs start_ns, TimeNs end_ns, std::uint32_t id);
  void Build();
  // The ids of the rows holding t, ascending.
  std::vector<std::uint32_t> Stab(TimeNs t) const;

 private:
  void Visit(std::size_t node, std::size_t lo, std::size_t hi, std::size_t below, TimeNs t,
             std::vector<std::uint32_t>& out) const;
  struct Row {
    TimeNs start_ns, end_ns;
    std::uint32_t id;
  };
  std::vector<Row> rows_;
  std::vector<TimeNs> max_end_;  // per tree node over rows_[lo, hi)
};

// Reads columns of one rank, as many as asked: what every read shares (the device buckets, the
// layer tree, the indexes of GPU activities, host ranges and samples) is built once. Holds the
// detail by reference: use it inside RankObserver::OnRank only.
class ColumnReader {
 public:
  explicit ColumnReader(const RankDetail& d);
  // The column at t (inside the rank's run window).
  Column Read(TimeNs t) const;
  const std::vector<TimelineBucket>& buckets() const { return buckets_; }
  const join::LayerTree& tree() const { return tree_; }

 private:
  const RankDetail& d_;
  std::vector<TimelineBucket> buckets_;
  join::LayerTree tree_;
  IntervalIndex gpu_, cpu_, api_;
  std::vector<std::uint32_t> by_start_;  // kept GPU rows by (start, row)
  std::vector<TimeNs> ends_;             // kept GPU rows' ends, ascending
  std::vector<std::pair<std::string_view, std::vector<std::uint32_t>>> samples_;  // by metric, by (ts, row)
};

// The column at t (inside the rank's run window): ColumnReader(d).Read(t).
Column ReadColumn(const RankDetail& d, TimeNs t);

}  // namespace plasmient::verdict
