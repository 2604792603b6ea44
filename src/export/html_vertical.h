// The report's vertical trace of one rank (docs/outputs.md, `lanes`): for its worst and its median
// step, lanes for the cluster, the model layer, the ops, the kernels per stream and the device
// buckets, and a cursor that reads the column's sentence at the instant under the pointer — the
// sentence `plasmient explain --at` prints. The page only picks the segment under the cursor and
// joins its clauses: every clause is `explain`'s own (explain_sink.h), computed here per stretch
// of time over which it does not change.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "export/explain_sink.h"
#include "verdict/analyze.h"

namespace plasmient::exporting {

// What one view embeds is capped so the report stays small; the note under the chart says so.
inline constexpr std::size_t kVerticalMaxSegments = 600;  // sentence stretches per view
inline constexpr std::size_t kVerticalMaxBars = 300;      // bars per lane (the longest kept)

struct VerticalBar {
  TimeNs start_ns = 0, end_ns = 0;  // on the rank's clock
  std::string label, tip;
  double shade = -1;  // 0..1: a kernel's share of its roofline ceiling; -1: unmodeled (grey)
  int row = 0;        // nesting depth inside the lane
};

struct VerticalLane {
  std::string name;
  std::vector<VerticalBar> bars;
  std::size_t total = 0;  // bars before the cap
  int rows = 1;
};

// One stretch over which every rank-local clause of the sentence stays the same.
struct VerticalSegment {
  TimeNs start_ns = 0;                  // on the rank's clock; it lasts until the next segment's start
  std::vector<SentenceClause> clauses;  // the device, kernel and host clauses (SentenceClauses)
};

struct VerticalView {
  std::string title;  // "worst step 4", "median step 2", "the run window"
  std::string why;    // how the step was chosen
  std::int64_t step = -1;
  TimeNs start_ns = 0, end_ns = 0;  // what is drawn and read, on the rank's clock
  TimeNs step_end_ns = 0;           // the step's end: past end_ns when the view is cut short
  std::vector<VerticalLane> lanes;  // model layer, ops, kernels per stream
  std::vector<verdict::TimelineBucket> buckets;
  std::vector<VerticalSegment> segments;
};

struct VerticalTrace {
  std::int64_t rank = -1;
  std::string path;
  TimeNs window_start_ns = 0;
  std::vector<VerticalView> views;
};

// The worst and median steps of one rank, read while its detail is at hand.
VerticalTrace ReadVertical(const verdict::RankDetail& d);

// Keeps, as ranks stream by, the vertical trace of each rank that leads a loss so far (at most
// one per loss), so the rank the report shows — the first fix's (verdict::FirstFixInstant) —
// is at hand once the job is known. Passes each rank on to `next`.
class VerticalCollector : public verdict::RankObserver {
 public:
  explicit VerticalCollector(verdict::RankObserver* next) : next_(next) {}
  void OnRank(const verdict::RankDetail& d) override;
  // The trace of the rank the report shows, or null when none was read.
  std::shared_ptr<const VerticalTrace> For(const verdict::JobVerdict& job) const;

 private:
  struct Lead {
    double loss_s = -1;
    std::shared_ptr<const VerticalTrace> trace;
  };
  verdict::RankObserver* next_;
  std::array<Lead, verdict::kLossCount> leads_;
  std::shared_ptr<const VerticalTrace> lowest_;  // the lowest rank: when no fix names one
};

// The section (id "lanes"); "" without a trace. The cluster lanes and clause come from the job.
std::string VerticalSection(const verdict::JobVerdict& job, const VerticalTrace* trace);

}  // namespace plasmient::exporting
