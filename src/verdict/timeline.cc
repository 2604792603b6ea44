#include "verdict/timeline.h"

#include <algorithm>
#include <utility>

namespace plasmient::verdict {

std::vector<TimelineBucket> Timeline(const model::Trace& t, const ActivityFacts& f, const Figures& run,
                                     TimeNs bucket_ns, std::size_t max_buckets) {
  if (run.end_ns <= run.start_ns) return {};
  const TimeNs span = run.end_ns - run.start_ns;
  const TimeNs width = std::max<TimeNs>({bucket_ns, 1,
                                         (span + static_cast<TimeNs>(max_buckets) - 1) /
                                             static_cast<TimeNs>(std::max<std::size_t>(max_buckets, 1))});
  const std::size_t n = static_cast<std::size_t>((span + width - 1) / width);
  std::vector<double> busy(n, 0), useful(n, 0);
  auto spread = [&](TimeNs a, TimeNs b, double amount, std::vector<double>& into) {
    a = std::max(a, run.start_ns);
    b = std::min(b, run.end_ns);
    if (b <= a) return;
    double per_ns = amount / static_cast<double>(b - a);
    for (auto k = static_cast<std::size_t>((a - run.start_ns) / width); k < n; ++k) {
      TimeNs lo = run.start_ns + static_cast<TimeNs>(k) * width, hi = lo + width;
      if (lo >= b) break;
      into[k] += per_ns * static_cast<double>(std::min(b, hi) - std::max(a, lo));
    }
  };
  std::vector<std::pair<TimeNs, TimeNs>> kernels;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (!f.kept[i]) continue;
    TimeNs a = t.gpu.start_ns[i], b = t.gpu.end_ns[i];
    if (t.gpu.kind[i] == model::GpuKind::kKernel) kernels.emplace_back(a, b);
    if (f.useful_ns[i] > 0) spread(a, b, f.useful_ns[i], useful);
  }
  std::sort(kernels.begin(), kernels.end());
  TimeNs cur_a = 0, cur_b = kNoTime;
  for (auto [a, b] : kernels) {  // the union of kernel intervals
    if (a > cur_b) {
      spread(cur_a, cur_b, static_cast<double>(cur_b - cur_a), busy);
      cur_a = a;
      cur_b = b;
    } else {
      cur_b = std::max(cur_b, b);
    }
  }
  if (cur_b != kNoTime) spread(cur_a, cur_b, static_cast<double>(cur_b - cur_a), busy);
  std::vector<TimelineBucket> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    TimeNs lo = run.start_ns + static_cast<TimeNs>(k) * width, hi = std::min(run.end_ns, lo + width);
    double len = static_cast<double>(hi - lo);
    out[k] = {lo, hi, busy[k] / len, useful[k] / len};
  }
  return out;
}

std::vector<TimelineBucket> MergeBuckets(const std::vector<TimelineBucket>& buckets, std::size_t group) {
  group = std::max<std::size_t>(group, 1);
  std::vector<TimelineBucket> out;
  out.reserve((buckets.size() + group - 1) / group);
  for (std::size_t i = 0; i < buckets.size(); i += group) {
    const std::size_t last = std::min(buckets.size(), i + group) - 1;
    double busy = 0, useful = 0, total = 0;
    for (std::size_t j = i; j <= last; ++j) {
      const auto dur = static_cast<double>(buckets[j].end_ns - buckets[j].start_ns);
      busy += buckets[j].utilization * dur;
      useful += buckets[j].achieved * dur;
      total += dur;
    }
    out.push_back({buckets[i].start_ns, buckets[last].end_ns, total > 0 ? busy / total : 0,
                   total > 0 ? useful / total : 0});
  }
  return out;
}

}  // namespace plasmient::verdict
