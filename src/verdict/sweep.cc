#include "verdict/sweep.h"

#include <algorithm>
#include <array>

namespace plasmient::verdict {
namespace {

using join::ActivityClass;

// 12 bytes, not 16: a window's edges are twice its activities, and this array is the largest the
// sweep touches. Packed: the time loads unaligned, which x86 does at no extra cost.
struct [[gnu::packed]] Edge {
  TimeNs t;              // clipped to the window
  std::uint32_t tagged;  // activity index << 1 | is_start
  std::size_t item() const { return tagged >> 1; }
  bool is_start() const { return (tagged & 1) != 0; }
};
static_assert(sizeof(Edge) == 12);

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

  // Edges point at the activities themselves, clipped as they are listed: no clipped copy. The
  // edges come in the same order, with the same times, as from a clipped list, so the sort
  // (unstable, by time alone) orders them the same.
  std::vector<Edge> edges;
  edges.reserve(activities.size() * 2);
  for (std::size_t i = 0; i < activities.size(); ++i) {
    const SweepActivity& a = activities[i];
    TimeNs s = std::max(a.start_ns, window_start), e = std::min(a.end_ns, window_end);
    if (e <= s) continue;
    const auto tagged = static_cast<std::uint32_t>(i << 1);
    edges.push_back({s, tagged | 1});
    edges.push_back({e, tagged});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  r.shares.reserve(edges.size() / 2);

  // G(t) = integral of 1/c over time with c >= 1 compute kernels resident: a kernel's share is
  // G(end) - G(start), so no per-slice loop over the resident set is needed.
  std::vector<double> g_start(activities.size(), 0.0);
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
    const SweepActivity& it = activities[edge.item()];
    int cls = static_cast<int>(it.cls);
    counts[cls] += edge.is_start() ? 1 : -1;
    if (edge.is_start()) {
      g_start[edge.item()] = g[cls];
    } else {
      r.shares.emplace_back(it.id, g[cls] - g_start[edge.item()]);
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
