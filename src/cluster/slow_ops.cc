#include "cluster/slow_ops.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "cluster/cluster_match.h"

namespace plasmient::cluster {
namespace {

using verdict::OpStepTimes;
using verdict::RankVerdict;
using verdict::SlowOp;

// Jitter makes the same op faster or slower on any rank from step to step (in synth's jobs, a
// single-call op of a balanced job reaches 1.15× the median rank's over three steps); a slow op
// runs at least this many times the median rank's time.
constexpr double kSlowOpMinRatio = 1.2;
// Ops whose excess explains less of the straggler's lateness than this are not worth naming.
constexpr double kSlowOpMinShareOfLateness = 0.01;
// ... and it is the slowest of all ranks in more than this share of the matched steps: a rank
// that is late by chance has an op above the median now and then, a slow GPU has it every step;
// and its excess is more than the other ranks' spread (Σ over the steps of their slowest minus
// their fastest time): a rank that is only the slowest draw of the jitter stays within it.
constexpr double kSlowOpMinSlowestSteps = 0.5;

std::string KeyOf(const OpStepTimes& o) {
  // Kernels under no op are keyed by the kernel; "\x1f" never occurs in an op name or its dims.
  return o.op.empty() ? "\x1f" + o.kernel : o.op + '\x1f' + o.shapes;
}

double StepSeconds(const OpStepTimes& o, std::int64_t step) {
  auto it = std::lower_bound(o.step_s.begin(), o.step_s.end(), step,
                             [](const auto& entry, std::int64_t s) { return entry.first < s; });
  return it != o.step_s.end() && it->first == step ? it->second : -1;
}

}  // namespace

std::vector<SlowOp> SlowOpsOf(std::span<const RankVerdict* const> ranks, const verdict::Straggler& s) {
  const RankVerdict* late = nullptr;
  std::unordered_map<std::string, std::vector<const OpStepTimes*>> others;  // by key, one per rank
  for (const RankVerdict* r : ranks) {
    if (r->rank == s.rank && late == nullptr) {
      late = r;
      continue;
    }
    for (const auto& o : r->op_times) others[KeyOf(o)].push_back(&o);
  }
  std::vector<SlowOp> out;
  if (late == nullptr) return out;
  const double lateness_s = s.lateness_s();
  for (const auto& o : late->op_times) {
    auto peers = others.find(KeyOf(o));
    if (peers == others.end()) continue;
    SlowOp slow{.op = o.op, .shapes = o.shapes, .kernel = o.kernel};
    std::int64_t slowest_steps = 0;
    double spread_s = 0;
    for (const auto& [step, seconds] : o.step_s) {
      std::vector<double> times;
      for (const OpStepTimes* p : peers->second) {
        if (double t = StepSeconds(*p, step); t >= 0) times.push_back(t);
      }
      if (times.empty()) continue;
      const auto [fastest, slowest] = std::minmax_element(times.begin(), times.end());
      slowest_steps += seconds > *slowest;
      spread_s += *slowest - *fastest;
      const double median = Median(std::move(times));
      ++slow.steps;
      slow.rank_s += seconds;
      slow.median_s += median;
      slow.excess_s += std::max(0.0, seconds - median);
    }
    if (slow.steps == 0 || slow.rank_s < kSlowOpMinRatio * slow.median_s ||
        static_cast<double>(slowest_steps) <= kSlowOpMinSlowestSteps * static_cast<double>(slow.steps) ||
        slow.excess_s <= spread_s)
      continue;
    if (lateness_s > 0 && slow.excess_s < kSlowOpMinShareOfLateness * lateness_s) continue;
    slow.share_of_lateness = lateness_s > 0 ? std::min(1.0, slow.excess_s / lateness_s) : 0;
    out.push_back(std::move(slow));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SlowOp& a, const SlowOp& b) { return a.excess_s > b.excess_s; });
  return out;
}

}  // namespace plasmient::cluster
