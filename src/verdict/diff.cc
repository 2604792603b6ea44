#include "verdict/diff.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace plasmient::verdict {
namespace {

std::optional<double> MeanStep(const JobVerdict& job) {
  double sum = 0;
  std::int64_t n = 0;
  for (const auto& r : job.ranks) {
    for (const auto& s : r.steps) sum += s.figures.wall_s, ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

std::vector<AggregateChange> DiffAggregates(const std::vector<KernelAggregate>& before,
                                            double before_capacity_s,
                                            const std::vector<KernelAggregate>& after,
                                            double after_capacity_s, std::size_t top_n) {
  std::map<std::string, AggregateChange> by_name;
  auto fill = [&](const KernelAggregate& k, double capacity_s, bool is_after) {
    AggregateChange& c = by_name[k.name];
    c.name = k.name;
    if (c.op.empty() || is_after) c.op = k.op;
    if (is_after || !c.after_lost_s) c.loss = k.loss;
    double fraction = capacity_s > 0 ? k.lost_s / capacity_s : 0;
    (is_after ? c.after_lost_fraction : c.before_lost_fraction) = fraction;
    (is_after ? c.after_lost_s : c.before_lost_s) = k.lost_s;
    (is_after ? c.after_achieved : c.before_achieved) = k.achieved_fraction();
  };
  for (const auto& k : before) fill(k, before_capacity_s, false);
  for (const auto& k : after) fill(k, after_capacity_s, true);
  std::vector<AggregateChange> out;
  out.reserve(by_name.size());
  for (auto& [name, c] : by_name) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(), [](const AggregateChange& a, const AggregateChange& b) {
    return std::fabs(a.delta()) > std::fabs(b.delta());
  });
  if (out.size() > top_n) out.resize(top_n);
  return out;
}

}  // namespace

VerdictDiff DiffVerdicts(const JobVerdict& before, const JobVerdict& after, std::size_t top_n) {
  VerdictDiff d;
  const Figures &b = before.job, &a = after.job;
  d.achieved = {"achieved_fraction", "achieved fraction of peak", b.achieved(), a.achieved()};
  d.utilization = {"utilization", "utilization (nvidia-smi)", b.utilization(), a.utilization()};
  for (std::size_t i = 0; i < kLossCount; ++i) {
    auto l = static_cast<Loss>(i);
    d.losses.push_back({std::string(LossKey(l)), std::string(before.loss_label(l)), b.loss(l), a.loss(l)});
  }
  std::stable_sort(d.losses.begin(), d.losses.end(), [](const FigureChange& x, const FigureChange& y) {
    return std::fabs(x.delta()) > std::fabs(y.delta());
  });
  d.before_step_s = MeanStep(before);
  d.after_step_s = MeanStep(after);
  d.before_gpu_s = b.wall_s;
  d.after_gpu_s = a.wall_s;
  d.before_headroom = before.headroom();
  d.after_headroom = after.headroom();
  d.before_device = before.device.name;
  d.after_device = after.device.name;
  d.kernels = DiffAggregates(before.top_kernels, b.wall_s, after.top_kernels, a.wall_s, top_n);
  d.ops = DiffAggregates(before.top_ops, b.wall_s, after.top_ops, a.wall_s, top_n);
  return d;
}

}  // namespace plasmient::verdict
