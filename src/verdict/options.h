// The verdict's vocabulary that the stages right of it share: the options an analysis runs with,
// the step slice, and the per-rank detail a sink sees while a rank's trace is in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "join/join.h"
#include "model/trace.h"
#include "roofline/ceilings.h"
#include "roofline/device_table.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// A Python-style slice over the trace's ProfilerSteps: "A:B", either end open, negatives from the end
// (--steps; cli/step_slice.h parses it).
struct StepSlice {
  std::optional<std::int64_t> begin, end;
};

struct ActivityFacts;
struct RangeFigures;

// One rank at the end of AnalyzeRank, before its trace is dropped: the facts table beside the
// trace and join it indexes. Sinks that draw every activity (Perfetto) read it here, so ranks
// stream through one at a time. Read-only: nothing after AnalyzeRank writes a fact.
struct RankDetail {
  const model::Trace& trace;
  const join::Joined& joined;
  const ActivityFacts& facts;
  const RankVerdict& verdict;
  const std::unordered_map<model::CpuOpRowId, RangeFigures>& ranges;  // per layer range call (layers.h)
};

class RankObserver {
 public:
  virtual ~RankObserver() = default;
  virtual void OnRank(const RankDetail& detail) = 0;
};

struct AnalyzeOptions {
  std::string gpu;                                     // --gpu: device table key or name; empty = from trace
  std::optional<double> peak_flops_per_s;              // --peak-tflops × 1e12
  std::optional<double> memory_bandwidth_bytes_per_s;  // --peak-bandwidth-gbps × 1e9
  // --ceiling measured --ceilings FILE: each rank judged against its device's measured GEMM FLOP/s
  // and bandwidth (roofline/ceilings.h) instead of the datasheet's; a rank whose device has none
  // fails. --peak-tflops and --peak-bandwidth-gbps still override either.
  roofline::CeilingKind ceiling = roofline::CeilingKind::kDatasheet;
  std::shared_ptr<const roofline::Ceilings> ceilings;
  std::optional<StepSlice> steps;  // --steps
  std::optional<double> model_flops_per_step;
  roofline::Fp32MathOption fp32_math = roofline::Fp32MathOption::kAuto;  // --fp32-math
  std::optional<double> price_per_gpu_hour;
  double target_fraction = kDefaultTargetFraction;  // --target-mfu
  std::size_t top_n = 15;
  double link_bandwidth_bytes_per_s = 0;  // --link-bandwidth-gbps × 1e9: collectives judged by it
  RankObserver* observer = nullptr;       // sees each rank's per-activity detail, in input order
  // Keep each rank's activity table in its verdict (RankVerdict::activities): what-if, the report's
  // what-if panel and the store's lever rows read it.
  bool keep_activities = false;
  // --graph-capture: traces of the graphs' capture, whose launches the replays in the inputs are
  // matched to (docs/graphs.md, "A capture beside the replay").
  std::vector<std::string> graph_captures;
  // Ranks of a job read and analyzed at once (job::AnalyzeInputs; --jobs). The figures do not
  // depend on it.
  std::size_t workers = 1;
  // Cores the analysis may use (0: the machine's), shared among the ranks read at once
  // (job::CoresEach); serve gives each of its workers its share of the node.
  std::size_t cores = 0;
  // Threads one rank's analysis may use: its share of the cores (job::AnalyzeInputs sets it).
  // The figures do not depend on it.
  std::size_t rank_threads = 1;
};

}  // namespace plasmient::verdict
