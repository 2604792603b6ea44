#include "synth/truth_calculator.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>

namespace plasmient::synth {

double LossSeconds::Total() const {
  return compute_inefficiency + memory_bound + unmodeled_kernels + exposed_communication + pipeline_bubble +
         host_bound_idle + data_movement;
}

void LossSeconds::Add(const LossSeconds& o) {
  compute_inefficiency += o.compute_inefficiency;
  memory_bound += o.memory_bound;
  unmodeled_kernels += o.unmodeled_kernels;
  exposed_communication += o.exposed_communication;
  pipeline_bubble += o.pipeline_bubble;
  host_bound_idle += o.host_bound_idle;
  data_movement += o.data_movement;
}

LossCategory ClassifyLoss(const TruthActivity& a, const DeviceModel& device) {
  if (a.cls != ActivityClass::kCompute) return LossCategory::kNone;
  if (!a.flop_model && !a.byte_model) return LossCategory::kUnmodeled;
  if (!a.byte_model) return LossCategory::kComputeInefficiency;  // bytes unknown
  if (a.bytes <= 0) return LossCategory::kComputeInefficiency;
  const double flops = a.flop_model ? a.flops : 0.0;
  const double intensity = flops / a.bytes;
  const double ridge = device.peak_flops_per_s / device.mem_bytes_per_s;
  return intensity < ridge ? LossCategory::kMemoryBound : LossCategory::kComputeInefficiency;
}

Dtype DominantDtype(std::span<const TruthActivity> activities) {
  std::array<double, 4> flops_by_dtype{};
  for (const TruthActivity& a : activities) {
    if (a.cls == ActivityClass::kCompute && a.flop_model && a.flops > 0) {
      flops_by_dtype[static_cast<std::size_t>(a.dtype)] += a.flops;
    }
  }
  std::size_t best = static_cast<std::size_t>(Dtype::kBf16);
  for (std::size_t i = 0; i < flops_by_dtype.size(); ++i) {
    if (flops_by_dtype[i] > flops_by_dtype[best]) best = i;
  }
  return static_cast<Dtype>(best);
}

namespace {

struct Edge {
  TimeNs t;
  bool is_start;
  std::uint32_t index;
};

}  // namespace

WindowTruth ComputeWindow(std::span<const TruthActivity> activities, TimeNs start_ns, TimeNs end_ns,
                          const DeviceModel& device, std::vector<KernelTruth>* per_kernel) {
  WindowTruth w;
  w.start_ns = start_ns;
  w.end_ns = end_ns;
  w.span_s = NsToSeconds(end_ns - start_ns);
  std::vector<Edge> edges;
  for (std::uint32_t i = 0; i < activities.size(); ++i) {
    const TruthActivity& a = activities[i];
    const TimeNs s = std::max(a.start_ns, start_ns);
    const TimeNs e = std::min(a.end_ns, end_ns);
    if (e <= s) continue;
    edges.push_back({s, true, i});
    edges.push_back({e, false, i});
  }
  // Ends before starts at equal times: an interval [s, e) is not resident at e.
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    if (x.t != y.t) return x.t < y.t;
    return x.is_start < y.is_start;
  });

  // Per activity: its share of the slices its class decided (docs/layers.md): a compute kernel's
  // share of the compute slices; a collective's, P2P transfer's or copy's of the slices where
  // only its class was resident. Concurrent activities of the deciding class split a slice.
  std::vector<double> share_ns(activities.size(), 0.0);
  std::array<std::vector<std::uint32_t>, 4> resident_lists;
  std::array<int, 4> resident{};
  TimeNs cursor = start_ns;
  double idle_ns = 0;
  auto account = [&](TimeNs until) {
    const TimeNs d = until - cursor;
    if (d <= 0) return;
    const double dd = static_cast<double>(d);
    const int compute = resident[static_cast<int>(ActivityClass::kCompute)];
    const int coll = resident[static_cast<int>(ActivityClass::kCollective)];
    const int p2p = resident[static_cast<int>(ActivityClass::kP2p)];
    const int mem = resident[static_cast<int>(ActivityClass::kMemory)];
    auto split = [&](ActivityClass cls, int count) {
      for (std::uint32_t k : resident_lists[static_cast<int>(cls)]) share_ns[k] += dd / count;
    };
    if (compute > 0) {
      split(ActivityClass::kCompute, compute);
    } else if (coll > 0) {
      w.losses.exposed_communication += dd;
      split(ActivityClass::kCollective, coll);
    } else if (p2p > 0) {
      w.losses.pipeline_bubble += dd;
      split(ActivityClass::kP2p, p2p);
    } else if (mem > 0) {
      w.losses.data_movement += dd;
      split(ActivityClass::kMemory, mem);
    } else {
      idle_ns += dd;
    }
    if (compute + coll + p2p > 0) w.kernel_union_s += dd;
    if (compute + coll + p2p + mem > 0) w.gpu_busy_s += dd;
    if (compute > 0) w.compute_s += dd;
    if (coll + p2p > 0) w.communication_s += dd;
    if (compute > 0 && coll + p2p > 0) w.communication_overlapped_s += dd;
  };
  for (const Edge& edge : edges) {
    account(edge.t);
    cursor = std::max(cursor, edge.t);
    const TruthActivity& a = activities[edge.index];
    const int cls = static_cast<int>(a.cls);
    auto& list = resident_lists[cls];
    if (edge.is_start) {
      ++resident[cls];
      list.push_back(edge.index);
    } else {
      --resident[cls];
      auto it = std::find(list.begin(), list.end(), edge.index);
      *it = list.back();
      list.pop_back();
    }
  }
  account(end_ns);
  w.losses.host_bound_idle += idle_ns;

  if (per_kernel != nullptr) per_kernel->assign(activities.size(), KernelTruth{});
  double useful_ns = 0;
  const double peak_per_ns = device.peak_flops_per_s * 1e-9;
  for (std::uint32_t i = 0; i < activities.size(); ++i) {
    const TruthActivity& a = activities[i];
    if (a.cls != ActivityClass::kCompute && per_kernel != nullptr)
      (*per_kernel)[i].share_s = NsToSeconds(share_ns[i]);
    if (a.cls != ActivityClass::kCompute || share_ns[i] <= 0) continue;
    const TimeNs s = std::max(a.start_ns, start_ns);
    const TimeNs e = std::min(a.end_ns, end_ns);
    const double inside = static_cast<double>(e - s) / static_cast<double>(a.end_ns - a.start_ns);
    const double flops = a.flop_model ? a.flops * inside : 0.0;
    const double useful = std::min(flops / peak_per_ns, share_ns[i]);
    const double loss = share_ns[i] - useful;
    useful_ns += useful;
    const LossCategory category = ClassifyLoss(a, device);
    switch (category) {
      case LossCategory::kUnmodeled:
        w.losses.unmodeled_kernels += loss;
        break;
      case LossCategory::kMemoryBound:
        w.losses.memory_bound += loss;
        break;
      case LossCategory::kComputeInefficiency:
      case LossCategory::kNone:
        w.losses.compute_inefficiency += loss;
        break;
    }
    if (per_kernel != nullptr) {
      (*per_kernel)[i] = {NsToSeconds(share_ns[i]), NsToSeconds(useful), category};
    }
  }
  w.useful_s = NsToSeconds(useful_ns);
  // Slice sums were kept in ns; convert once.
  w.losses.compute_inefficiency = NsToSeconds(w.losses.compute_inefficiency);
  w.losses.memory_bound = NsToSeconds(w.losses.memory_bound);
  w.losses.unmodeled_kernels = NsToSeconds(w.losses.unmodeled_kernels);
  w.losses.exposed_communication = NsToSeconds(w.losses.exposed_communication);
  w.losses.pipeline_bubble = NsToSeconds(w.losses.pipeline_bubble);
  w.losses.host_bound_idle = NsToSeconds(w.losses.host_bound_idle);
  w.losses.data_movement = NsToSeconds(w.losses.data_movement);
  w.kernel_union_s = NsToSeconds(w.kernel_union_s);
  w.gpu_busy_s = NsToSeconds(w.gpu_busy_s);
  w.compute_s = NsToSeconds(w.compute_s);
  w.communication_s = NsToSeconds(w.communication_s);
  w.communication_overlapped_s = NsToSeconds(w.communication_overlapped_s);
  return w;
}

std::vector<std::pair<std::string, double>> HostIdleByCause(std::span<const TruthActivity> activities,
                                                            TimeNs start_ns, TimeNs end_ns,
                                                            std::span<const HostStallTruth> stalls) {
  // The idle intervals: the window less the union of the activities.
  std::vector<std::pair<TimeNs, TimeNs>> busy;
  for (const TruthActivity& a : activities) {
    const TimeNs s = std::max(a.start_ns, start_ns), e = std::min(a.end_ns, end_ns);
    if (s < e) busy.emplace_back(s, e);
  }
  std::sort(busy.begin(), busy.end());
  std::vector<std::pair<TimeNs, TimeNs>> idle;
  TimeNs at = start_ns;
  for (const auto& [s, e] : busy) {
    if (s > at) idle.emplace_back(at, s);
    at = std::max(at, e);
  }
  if (at < end_ns) idle.emplace_back(at, end_ns);
  std::vector<std::pair<std::string, double>> out;
  for (const HostStallTruth& st : stalls) {
    TimeNs ns = 0;
    auto it = std::lower_bound(idle.begin(), idle.end(), std::pair{st.start_ns, TimeNs{0}},
                               [](const auto& a, const auto& b) { return a.second <= b.first; });
    for (; it != idle.end() && it->first < st.end_ns; ++it)
      ns += std::max<TimeNs>(0, std::min(it->second, st.end_ns) - std::max(it->first, st.start_ns));
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == st.cause; });
    if (same == out.end()) same = out.emplace(out.end(), st.cause, 0.0);
    same->second += NsToSeconds(ns);
  }
  return out;
}

RankTruth ComputeRankTruth(std::span<const TruthActivity> activities, const DeviceModel& device) {
  RankTruth truth;
  if (activities.empty()) return truth;
  TimeNs first = activities.front().start_ns;
  TimeNs last = activities.front().end_ns;
  std::map<int, TimeNs> step_first_start;
  for (const TruthActivity& a : activities) {
    first = std::min(first, a.start_ns);
    last = std::max(last, a.end_ns);
    auto [it, inserted] = step_first_start.try_emplace(a.step, a.start_ns);
    if (!inserted) it->second = std::min(it->second, a.start_ns);
  }
  truth.run = ComputeWindow(activities, first, last, device, &truth.kernels);
  for (auto it = step_first_start.begin(); it != step_first_start.end(); ++it) {
    auto next = std::next(it);
    const TimeNs end = next == step_first_start.end() ? last : next->second;
    truth.steps.push_back({it->first, ComputeWindow(activities, it->second, end, device)});
  }
  return truth;
}

}  // namespace plasmient::synth
