#include "verdict/sweep.h"

#include <algorithm>
#include <array>

namespace plasmient::verdict {
namespace {

using join::ActivityClass;

struct Edge {
  TimeNs t;
  std::int32_t item;  // index into the clipped list
  bool is_start;
};

}  // namespace

std::optional<ActivityClass> DecidingClass(std::span<const int, kActivityClasses> resident) {
  for (auto c :
       {ActivityClass::kCompute, ActivityClass::kCollective, ActivityClass::kP2P, ActivityClass::kMemory}) {
    if (resident[static_cast<std::size_t>(c)] > 0) return c;
  }
  return std::nullopt;
}

Loss LossOfSlice(ActivityClass decided) {
  switch (decided) {
    case ActivityClass::kCollective:
      return Loss::kExposedCommunication;
    case ActivityClass::kP2P:
      return Loss::kPipelineBubble;
    case ActivityClass::kMemory:
      return Loss::kDataMovement;
    case ActivityClass::kCompute:
      break;
  }
  return Loss::kComputeInefficiency;
}

SweepResult Sweep(std::span<const SweepActivity> activities, TimeNs window_start, TimeNs window_end) {
  SweepResult r;
  r.start_ns = window_start;
  r.end_ns = window_end;
  if (window_end <= window_start) return r;

  std::vector<SweepActivity> items;
  items.reserve(activities.size());
  for (const auto& a : activities) {
    TimeNs s = std::max(a.start_ns, window_start), e = std::min(a.end_ns, window_end);
    if (e > s) items.push_back({s, e, a.cls, a.id});
  }
  std::vector<Edge> edges;
  edges.reserve(items.size() * 2);
  for (std::size_t i = 0; i < items.size(); ++i) {
    edges.push_back({items[i].start_ns, static_cast<std::int32_t>(i), true});
    edges.push_back({items[i].end_ns, static_cast<std::int32_t>(i), false});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });

  // G(t) = integral of 1/c over time with c >= 1 compute kernels resident: a kernel's share is
  // G(end) - G(start), so no per-slice loop over the resident set is needed.
  std::vector<double> g_start(items.size(), 0.0);
  std::array<int, kActivityClasses> counts{};
  double g[4] = {0, 0, 0, 0};
  TimeNs prev = window_start;
  // The stretch of slices the same class (or idle) decided, up to prev.
  std::size_t stretch_class = kIdleStretch;
  TimeNs stretch_start = kNoTime;
  auto close_stretch = [&] {
    auto& longest = r.longest_stretch[stretch_class];
    if (stretch_start == kNoTime) return;
    if (!longest || prev - stretch_start > longest->second - longest->first) longest = {stretch_start, prev};
  };
  for (std::size_t e = 0; e <= edges.size(); ++e) {
    TimeNs t = e < edges.size() ? edges[e].t : window_end;
    if (t > prev) {
      const std::optional<ActivityClass> slice_class = DecidingClass(counts);
      const std::size_t k = slice_class ? static_cast<std::size_t>(*slice_class) : kIdleStretch;
      if (stretch_start == kNoTime || k != stretch_class) {
        close_stretch();
        stretch_class = k;
        stretch_start = prev;
      }
      double d = static_cast<double>(t - prev);
      int compute = counts[static_cast<int>(ActivityClass::kCompute)];
      int coll = counts[static_cast<int>(ActivityClass::kCollective)];
      int p2p = counts[static_cast<int>(ActivityClass::kP2P)];
      int mem = counts[static_cast<int>(ActivityClass::kMemory)];
      if (auto decided = slice_class) {
        int c = static_cast<int>(*decided);
        g[c] += d / counts[c];
        switch (*decided) {
          case ActivityClass::kCompute:
            r.compute_ns += d;
            break;
          case ActivityClass::kCollective:
            r.exposed_communication_ns += d;
            break;
          case ActivityClass::kP2P:
            r.pipeline_bubble_ns += d;
            break;
          case ActivityClass::kMemory:
            r.data_movement_ns += d;
            break;
        }
      } else {
        r.idle_ns += d;
        if (!r.idle_gaps.empty() && r.idle_gaps.back().second == prev) {
          r.idle_gaps.back().second = t;
        } else {
          r.idle_gaps.emplace_back(prev, t);
        }
      }
      if (compute + coll + p2p > 0) r.kernel_union_ns += d;
      if (compute + coll + p2p + mem > 0) r.busy_union_ns += d;
      if (compute > 0) r.compute_union_ns += d;
      if (coll + p2p > 0) {
        r.communication_union_ns += d;
        if (compute > 0) r.communication_overlapped_ns += d;
      }
      prev = t;
    }
    if (e == edges.size()) break;
    const Edge& edge = edges[e];
    const SweepActivity& it = items[edge.item];
    int cls = static_cast<int>(it.cls);
    counts[cls] += edge.is_start ? 1 : -1;
    if (edge.is_start) {
      g_start[edge.item] = g[cls];
    } else {
      r.shares.emplace_back(it.id, g[cls] - g_start[edge.item]);
    }
  }
  close_stretch();
  return r;
}

Figures ChargeSweep(const SweepResult& s, std::span<const Loss> loss,
                    const std::function<double(std::int32_t k, double share_ns)>& useful_ns) {
  Figures f;
  f.start_ns = s.start_ns;
  f.end_ns = s.end_ns;
  f.wall_s = NsToSeconds(s.end_ns - s.start_ns);
  f.kernel_union_s = NsToSeconds(s.kernel_union_ns);
  auto add = [&f](Loss l, double ns) { f.loss_s[static_cast<std::size_t>(l)] += NsToSeconds(ns); };
  for (auto [k, share] : s.shares) {
    const Loss l = loss[static_cast<std::size_t>(k)];
    if (l == Loss::kExposedCommunication || l == Loss::kPipelineBubble || l == Loss::kDataMovement) {
      continue;  // those come from the sweep's own categories below
    }
    const double useful = useful_ns(k, share);
    f.useful_s += NsToSeconds(useful);
    add(l, share - useful);
  }
  add(Loss::kExposedCommunication, s.exposed_communication_ns);
  add(Loss::kPipelineBubble, s.pipeline_bubble_ns);
  add(Loss::kDataMovement, s.data_movement_ns);
  add(Loss::kHostBoundIdle, s.idle_ns);
  return f;
}

}  // namespace plasmient::verdict
