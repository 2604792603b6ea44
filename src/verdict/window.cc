#include "verdict/window.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace plasmient::verdict {
namespace {

using model::Dq;

// The bulk of a trace is its largest run of activities without an idle gap of a second or more
// (a short trace's launch latencies and pauses are never strays). Growing outwards from it, the
// activities beyond a gap are strays when the gap is at least 10 times the span kept so far and
// they are at most 5% of the activities, rounded up, whatever their count (two kernels a year
// after a 32-activity trace billed 8,760 GPU-hours under the earlier rule of one stray per
// hundred), so the bulk is never what is left out; otherwise the next run joins what is kept.
// A long real pause stays: hta/critical_path/alexnet idles 10 s after its first run, but the
// runs before its bulk hold 23 of its 98 activities.
constexpr TimeNs kStrayMinGapNs = kNsPerS;
constexpr double kStrayGapFactor = 10;
constexpr double kStrayMaxShare = 0.05;
// Not strays, but what a bill should say it covers: a window over a day (a stray the rule could
// not tell from work, or a clock jump) and kernels over an hour (persistent kernels are real).
constexpr TimeNs kLongWindowNs = 24LL * 3600 * kNsPerS;
constexpr TimeNs kLongKernelNs = 3600LL * kNsPerS;

TimeNs Duration(const model::Trace& t, std::size_t i) { return t.gpu.end_ns[i] - t.gpu.start_ns[i]; }

}  // namespace

void ExcludeStrayActivities(const model::Trace& t, std::vector<char>& kept, model::DataQuality& quality) {
  std::vector<std::uint32_t> order;
  order.reserve(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]) order.push_back(static_cast<std::uint32_t>(i));
  }
  if (order.size() < 2) return;
  // Tracers mostly list activities by start: when no two starts tie or go back, that order is the
  // only sorted one, and the sort is skipped.
  const auto by_start = [&](std::uint32_t a, std::uint32_t b) {
    return t.gpu.start_ns[a] < t.gpu.start_ns[b];
  };
  if (std::adjacent_find(order.begin(), order.end(), std::not_fn(by_start)) != order.end()) {
    std::sort(order.begin(), order.end(), by_start);
  }
  // Runs of activities split at idle gaps of kStrayMinGapNs or more: run k is order[cut[k], cut[k+1]).
  std::vector<std::size_t> cut = {0};
  std::vector<TimeNs> run_start = {t.gpu.start_ns[order[0]]}, run_end = {t.gpu.end_ns[order[0]]};
  for (std::size_t k = 1; k < order.size(); ++k) {
    TimeNs start = t.gpu.start_ns[order[k]], end = t.gpu.end_ns[order[k]];
    if (start - run_end.back() >= kStrayMinGapNs) {
      cut.push_back(k);
      run_start.push_back(start);
      run_end.push_back(end);
    } else {
      run_end.back() = std::max(run_end.back(), end);
    }
  }
  cut.push_back(order.size());
  const std::size_t runs = run_start.size();
  if (runs < 2) return;
  auto size = [&](std::size_t r) { return cut[r + 1] - cut[r]; };
  std::size_t bulk = 0;
  for (std::size_t r = 1; r < runs; ++r) {
    if (size(r) > size(bulk)) bulk = r;
  }
  const auto max_stray = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(kStrayMaxShare * static_cast<double>(order.size()))));
  std::size_t lo = bulk, hi = bulk;  // runs kept so far: [lo, hi]
  bool left_open = lo > 0, right_open = hi + 1 < runs;
  while (left_open || right_open) {
    TimeNs span = run_end[hi] - run_start[lo];
    auto far = [&](TimeNs gap) {
      return static_cast<double>(gap) >= kStrayGapFactor * static_cast<double>(span);
    };
    if (left_open) {
      // Closed where runs [0, lo) are strays, or where none is left to take.
      if ((cut[lo] <= max_stray && far(run_start[lo] - run_end[lo - 1])) || --lo == 0) left_open = false;
      continue;
    }
    // Closed where runs (hi, runs) are strays, or where none is left to take.
    if ((order.size() - cut[hi + 1] <= max_stray && far(run_start[hi + 1] - run_end[hi])) || ++hi + 1 == runs)
      right_open = false;
  }
  std::int64_t count = 0;
  TimeNs gpu_ns = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k >= cut[lo] && k < cut[hi + 1]) continue;
    kept[order[k]] = 0;
    ++count;
    gpu_ns += Duration(t, order[k]);
  }
  quality.Add(Dq::kStrayActivity, count, gpu_ns);
}

void FlagLongWindows(const model::Trace& t, const std::vector<char>& kept, model::DataQuality& quality) {
  TimeNs first = 0, last = 0;
  bool any = false;
  std::int64_t long_kernels = 0;
  TimeNs long_ns = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (!kept[i]) continue;
    first = any ? std::min(first, t.gpu.start_ns[i]) : t.gpu.start_ns[i];
    last = any ? std::max(last, t.gpu.end_ns[i]) : t.gpu.end_ns[i];
    any = true;
    if (Duration(t, i) > kLongKernelNs) {
      ++long_kernels;
      long_ns += Duration(t, i);
    }
  }
  if (any && last - first > kLongWindowNs) quality.Add(Dq::kLongWindow, 1, last - first);
  if (long_kernels > 0) quality.Add(Dq::kLongKernel, long_kernels, long_ns);
}

}  // namespace plasmient::verdict
