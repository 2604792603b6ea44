#include "verdict/aggregate.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "verdict/device_activity.h"

namespace plasmient::verdict {
namespace {

struct Acc {
  KernelAggregate agg;
  bool seen = false;  // the first activity names it and gives its bound
  std::unordered_map<std::uint32_t, std::int64_t> op_votes;
  std::array<double, kLossCount> lost_by{};
};

// `call`: whether this activity counts as one of the aggregate's calls.
void Accumulate(Acc& a, bool call, double dur_s, double share_s, double flops, double bytes, double useful_s,
                Loss loss, double peak, double bw) {
  KernelAggregate& g = a.agg;
  g.calls += call;
  g.time_s += dur_s;
  g.share_s += share_s;
  g.flops += std::max(0.0, flops);
  g.bytes += std::max(0.0, bytes);
  g.useful_s += useful_s;
  double lost = share_s - useful_s;
  g.lost_s += lost;
  a.lost_by[static_cast<std::size_t>(loss)] += lost;
  g.peak_flops_per_s = std::max(g.peak_flops_per_s, peak);
  g.memory_bandwidth_bytes_per_s = bw;
}

KernelAggregate Finish(Acc& a, const model::Trace& t) {
  KernelAggregate g = std::move(a.agg);
  auto best = std::max_element(a.lost_by.begin(), a.lost_by.end());
  if (*best > 0) {
    g.loss = static_cast<Loss>(best - a.lost_by.begin());
    g.bound = BoundOfLoss(g.loss);
  }
  std::uint32_t best_op = 0;
  std::int64_t votes = 0;
  for (auto [op, n] : a.op_votes) {
    if (n > votes) best_op = op, votes = n;
  }
  if (votes > 0) g.op = std::string(t.Str(StringId{best_op}));
  return g;
}

std::vector<KernelAggregate> TopByLoss(std::vector<KernelAggregate> all, std::size_t limit) {
  std::sort(all.begin(), all.end(), [](const KernelAggregate& a, const KernelAggregate& b) {
    return a.lost_s != b.lost_s ? a.lost_s > b.lost_s : a.name < b.name;
  });
  if (all.size() > limit) all.resize(limit);
  return all;
}

}  // namespace

void AggregateKernels(const model::Trace& t, const ActivityFacts& f, double memory_bandwidth_bytes_per_s,
                      std::size_t limit, RankVerdict& v) {
  std::unordered_map<std::uint32_t, Acc> by_kernel, by_op;
  const DeviceActivityIndex device_tier(t);
  for (std::size_t k = 0; k < f.size(); ++k) {
    if (!f.kept[k]) continue;
    double dur_s = NsToSeconds(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
    double share_s = NsToSeconds(f.share_ns[k]), useful_s = NsToSeconds(f.useful_ns[k]);
    double peak = f.peak_flops_per_s[k];
    DeviceActivity device;
    if (!device_tier.empty())
      device_tier.AddSpan(t.gpu.device[k], t.gpu.start_ns[k], t.gpu.end_ns[k], device);
    Acc& a = by_kernel[t.gpu.name[k].value];
    if (!std::exchange(a.seen, true)) {
      a.agg.name = std::string(t.Str(t.gpu.name[k]));
      a.agg.bound = f.bound[k];
    }
    Accumulate(a, true, dur_s, share_s, f.flops[k], f.bytes[k], useful_s, f.loss[k], peak,
               memory_bandwidth_bytes_per_s);
    a.agg.device.Merge(device);
    const model::CpuOpRowId by = f.cost_op[k].has_value() ? f.cost_op[k] : f.op[k];
    if (!by.has_value()) continue;
    const std::size_t op = by.index();
    a.op_votes[t.cpu.name[op].value]++;
    Acc& o = by_op[t.cpu.name[op].value];
    if (!std::exchange(o.seen, true)) {
      o.agg.name = std::string(t.Str(t.cpu.name[op]));
      o.agg.bound = f.bound[k];
    }
    // An op's calls are the kernels it launched; its memcpy and memset count in time only.
    Accumulate(o, t.gpu.kind[k] == model::GpuKind::kKernel, dur_s, share_s, f.flops[k], f.bytes[k], useful_s,
               f.loss[k], peak, memory_bandwidth_bytes_per_s);
    o.agg.device.Merge(device);
  }
  std::vector<KernelAggregate> kernels, ops;
  for (auto& [id, a] : by_kernel) kernels.push_back(Finish(a, t));
  for (auto& [id, a] : by_op) ops.push_back(Finish(a, t));
  v.top_kernels = TopByLoss(std::move(kernels), limit);
  v.top_ops = TopByLoss(std::move(ops), limit);
}

std::vector<KernelAggregate> MergeAggregates(std::span<const std::vector<KernelAggregate>* const> lists,
                                             std::size_t limit) {
  // By the lists' own names, which outlive the merge: only a name's first aggregate is copied.
  std::unordered_map<std::string_view, std::size_t> merged;
  std::vector<KernelAggregate> out;
  // Where the previous list's aggregate at each position went: the ranks of a job mostly list
  // the same kernels in the same order, and one comparison is cheaper than hashing a name that
  // runs to hundreds of bytes.
  std::vector<std::size_t> at, previous;
  for (const std::vector<KernelAggregate>* list : lists) {
    at.resize(list->size());
    for (std::size_t k = 0; k < list->size(); ++k) {
      const KernelAggregate& a = (*list)[k];
      if (k < previous.size() && out[previous[k]].name == a.name) {
        at[k] = previous[k];
      } else {
        auto [it, fresh] = merged.try_emplace(a.name, out.size());
        at[k] = it->second;
        if (fresh) {
          out.push_back(a);
          continue;
        }
      }
      KernelAggregate& m = out[at[k]];
      m.calls += a.calls;
      m.time_s += a.time_s;
      m.share_s += a.share_s;
      m.flops += a.flops;
      m.bytes += a.bytes;
      m.useful_s += a.useful_s;
      m.lost_s += a.lost_s;
      m.device.Merge(a.device);
    }
    previous.swap(at);
  }
  return TopByLoss(std::move(out), limit);
}

}  // namespace plasmient::verdict
