#include "verdict/analyze.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "base/name_memo.h"
#include "base/parallel.h"
#include "base/text.h"
#include "join/join.h"
#include "roofline/device_table.h"
#include "roofline/dtype.h"
#include "roofline/kernel_name.h"
#include "roofline/op_cost.h"
#include "roofline/roofline.h"
#include "verdict/activity_table.h"
#include "verdict/aggregate.h"
#include "verdict/column.h"
#include "verdict/device_activity.h"
#include "verdict/evidence.h"
#include "verdict/facts.h"
#include "verdict/iterations.h"
#include "verdict/kernel_costs.h"
#include "verdict/layers.h"
#include "verdict/op_times.h"
#include "verdict/sweep.h"
#include "verdict/window.h"

namespace plasmient::verdict {
namespace {

using join::ActivityClass;
using model::Dq;
using model::Trace;

constexpr std::string_view kDefaultDeviceKey = "h100_sxm";

// Resolves a slice end against `count` steps, Python style; nullopt = open.
std::size_t ResolveSliceEnd(std::optional<std::int64_t> v, std::size_t count, std::size_t open) {
  if (!v) return open;
  std::int64_t x = *v < 0 ? *v + static_cast<std::int64_t>(count) : *v;
  return static_cast<std::size_t>(std::clamp<std::int64_t>(x, 0, static_cast<std::int64_t>(count)));
}

// Which activities the step filter keeps (docs/verdict.md, "The window").
std::vector<char> SelectActivities(const Trace& t, const join::Joined& j, const AnalyzeOptions& o,
                                   model::DataQuality& quality) {
  const std::size_t n = t.gpu.size();
  // Work queued before profiling began is never the run's (the join marks and counts it).
  std::vector<char> kept(n, 1);
  for (std::size_t i = 0; i < n; ++i) kept[i] = !j.queued_before_profiling[i];
  if (!o.steps) return kept;
  const auto& steps = j.steps;
  std::size_t b = ResolveSliceEnd(o.steps->begin, steps.size(), 0);
  std::size_t e = ResolveSliceEnd(o.steps->end, steps.size(), steps.size());
  TimeNs lo = (o.steps->begin && b < steps.size()) ? steps[b].start_ns : kNoTime;
  TimeNs hi = (e < steps.size()) ? steps[e].start_ns : std::numeric_limits<TimeNs>::max();
  if (o.steps->begin && b >= steps.size()) lo = std::numeric_limits<TimeNs>::max();
  std::int64_t dropped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    TimeNs launch = join::LaunchTime(t, j, i);
    bool keep = launch != kNoTime && launch >= lo && launch < hi && b < e;
    dropped += !keep && kept[i];
    kept[i] = keep && kept[i];
  }
  quality.Add(Dq::kStepsFilteredOut, dropped);
  return kept;
}

// For a --steps that kept nothing: the steps the trace has, as --steps counts them.
std::string StepsThatExist(const join::Joined& j) {
  if (j.steps.empty()) return "the trace has no ProfilerStep ranges (analyze it without --steps)";
  const std::size_t n = j.steps.size();
  return fmt::format("the trace has {} ProfilerStep{} (#{}{}), --steps indices 0 to {} (or -{} to -1)", n,
                     n == 1 ? "" : "s", j.steps.front().number,
                     n == 1 ? "" : fmt::format(" to #{}", j.steps.back().number), n - 1, n);
}

// With no FLOP model (no shapes recorded), the dtype the GEMM and convolution kernels' names carry
// (sm90_xmma_gemm_bf16bf16…, ampere_sgemm_…, fp8 grouped GEMMs), weighted by their time;
// kUnknown when none names one.
roofline::Dtype DtypeOfHeavyKernelNames(const Trace& t, const std::vector<char>& kept) {
  std::array<double, 256> by_dtype{};
  std::unordered_map<std::uint32_t, roofline::Dtype> memo;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!kept[i] || t.gpu.kind[i] != model::GpuKind::kKernel) continue;
    auto [at, fresh] = memo.try_emplace(t.gpu.name[i].value, roofline::Dtype::kUnknown);
    if (fresh) {
      const std::string_view name = t.Str(t.gpu.name[i]);
      if (roofline::IsHeavyKernelName(name)) at->second = roofline::DtypeFromKernelName(name);
    }
    if (roofline::IsFloatingPoint(at->second))
      by_dtype[static_cast<std::uint8_t>(at->second)] +=
          static_cast<double>(t.gpu.end_ns[i] - t.gpu.start_ns[i]);
  }
  const auto best = std::max_element(by_dtype.begin(), by_dtype.end());
  return *best > 0 ? static_cast<roofline::Dtype>(best - by_dtype.begin()) : roofline::Dtype::kUnknown;
}

// The dtype that carries most modeled FLOPs; with none, the dtype the heavy kernels' names carry;
// kUnknown when neither says (the device's headline tensor pipe then stands in). Integer work
// (index arithmetic, embedding offsets) never sets the headline peak while floating-point work
// exists.
roofline::Dtype DominantDtype(const Trace& t, const KernelCosts& c, const std::vector<char>& kept) {
  std::array<double, 256> by_dtype{};       // by Dtype value
  std::vector<roofline::Dtype> first_seen;  // in the order of their first kernel
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!kept[i] || c.flops[i] <= 0) continue;
    double& sum = by_dtype[static_cast<std::uint8_t>(c.dtype[i])];
    if (sum == 0) first_seen.push_back(c.dtype[i]);
    sum += c.flops[i];
  }
  // A tie goes to the dtype whose first kernel came last, the order verdicts have always used.
  roofline::Dtype best = roofline::Dtype::kUnknown;
  double best_flops = 0;
  for (auto d = first_seen.rbegin(); d != first_seen.rend(); ++d) {
    const double flops = by_dtype[static_cast<std::uint8_t>(*d)];
    if (flops > best_flops && roofline::IsFloatingPoint(*d)) {
      best = *d;
      best_flops = flops;
    }
  }
  return best != roofline::Dtype::kUnknown ? best : DtypeOfHeavyKernelNames(t, kept);
}

// The newest architecture its kernel names carry (sm90_…, ampere_…, volta_…), or nullptr.
const roofline::DeviceSpec* DeviceFromKernels(const Trace& t) {
  std::unordered_set<std::uint32_t> seen;
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (t.gpu.kind[i] == model::GpuKind::kKernel && seen.insert(t.gpu.name[i].value).second) {
      names.push_back(t.Str(t.gpu.name[i]));
    }
  }
  return roofline::DeviceFromKernelNames(names);
}

Result<const roofline::DeviceSpec*> ChooseDevice(const Trace& t, const AnalyzeOptions& o,
                                                 DeviceChoice& choice, model::DataQuality& quality) {
  if (!t.devices.empty()) choice.trace_name = t.devices.front().name;
  // The device the kernels ran on first (deviceProperties lists every GPU of the node).
  std::unordered_map<std::int32_t, std::int64_t> used;
  for (std::int32_t d : t.gpu.device) ++used[d];
  for (const auto& [d, n] : used) {
    if (d >= 0 &&
        (choice.index < 0 || n > used[choice.index] || (n == used[choice.index] && d < choice.index)))
      choice.index = d;
  }
  if (!o.gpu.empty()) {
    auto m = roofline::FindDeviceByKey(o.gpu);
    if (!m) return std::unexpected(m.error());
    choice.source = "--gpu " + o.gpu;
    return m->spec;
  }
  std::vector<const model::DeviceInfo*> order;
  order.reserve(t.devices.size());
  for (const auto& d : t.devices) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto* a, const auto* b) { return used[a->id] > used[b->id]; });
  std::string first_error;
  for (const model::DeviceInfo* dp : order) {
    const auto& d = *dp;
    auto m = roofline::MatchDevice({.name = d.name,
                                    .sm_count = d.sm_count,
                                    .cc_major = d.cc_major,
                                    .cc_minor = d.cc_minor,
                                    .memory_bytes = d.total_memory_bytes,
                                    .warp_size = d.warp_size});
    if (m) {
      choice.source = "trace: " + m->reason;
      choice.trace_name = d.name;
      return m->spec;
    }
    if (first_error.empty()) first_error = m.error().message;
  }
  quality.Add(Dq::kUnknownDevice);
  choice.assumed = true;
  const std::string why = t.devices.empty() ? "the trace has no deviceProperties" : first_error;
  // Kernel names only bound the architecture from below (a kernel built for an older one runs on a
  // newer one), so they stand in only when the trace describes no device: a device record that
  // matches no row says the chip is another one (an RTX 2080 Ti runs volta_ kernels).
  if (const roofline::DeviceSpec* d = t.devices.empty() ? DeviceFromKernels(t) : nullptr) {
    choice.source = fmt::format(
        "assumed {}: {}; its kernel names are built for that architecture (use --gpu)", d->name, why);
    return d;
  }
  auto fallback = roofline::FindDeviceByKey(kDefaultDeviceKey);
  if (!fallback) return std::unexpected(fallback.error());
  choice.unknown = true;
  choice.source = fmt::format("assumed {}: {}, and no kernel name says which architecture (use --gpu)",
                              fallback->spec->name, why);
  return fallback->spec;
}

// The step windows tile the rank's timeline (docs/verdict.md).
std::vector<std::pair<std::int32_t, std::pair<TimeNs, TimeNs>>> StepWindows(const Trace& t,
                                                                            const join::Joined& j,
                                                                            const std::vector<char>& kept) {
  std::vector<TimeNs> first(j.steps.size(), std::numeric_limits<TimeNs>::max());
  std::vector<TimeNs> last_end(j.steps.size(), kNoTime);
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!kept[i] || !j.step[i].has_value()) continue;
    const std::size_t s = j.step[i].index();
    first[s] = std::min(first[s], t.gpu.start_ns[i]);
    last_end[s] = std::max(last_end[s], t.gpu.end_ns[i]);
  }
  std::vector<std::pair<std::int32_t, std::pair<TimeNs, TimeNs>>> windows;
  for (std::size_t s = 0; s < j.steps.size(); ++s) {
    if (last_end[s] == kNoTime) continue;
    windows.push_back({static_cast<std::int32_t>(s), {first[s], last_end[s]}});
  }
  for (std::size_t w = 0; w + 1 < windows.size(); ++w) {
    windows[w].second.second = std::max(windows[w].second.first, windows[w + 1].second.first);
  }
  return windows;
}

// Where an activity's lost time goes: communication and copies by their class; a compute kernel
// with no model at all is unmodeled, one whose pricing op lies below the ridge is memory-bound,
// and so is one that does no arithmetic (a priced op's layout transpose or reduction: its FLOPs
// went to the op's heavy kernels), never "compute below peak".
Loss LossOfActivity(ActivityClass cls, double flops, double bytes, bool op_below_ridge) {
  if (cls != ActivityClass::kCompute) return LossOfSlice(cls);
  if (flops < 0 && bytes < 0) return Loss::kUnmodeledKernels;
  if (op_below_ridge || flops <= 0) return Loss::kMemoryBound;
  return Loss::kComputeInefficiency;
}

// The facts table's columns that come from the join and the trace alone: they need no pricing,
// so they are filled beside it.
void JoinFacts(const Trace& t, const join::Joined& j, ActivityFacts& f) {
  const std::size_t n = t.gpu.size();
  f.cls = j.cls;
  f.launch = j.launch;
  f.op = j.op;
  f.layer = j.layer;
  f.step_number.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    if (j.step[i].has_value()) f.step_number[i] = j.steps[j.step[i].index()].number;
  }
  NameMemo is_host_sync(t.strings, join::IsHostSync);
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    if (is_host_sync(t.api.name[a])) f.host_syncs.emplace_back(t.api.start_ns[a], t.api.end_ns[a]);
  }
  std::sort(f.host_syncs.begin(), f.host_syncs.end());
}

// The pricing's columns move in.
void CostFacts(std::vector<char> kept, KernelCosts& costs, ActivityFacts& f) {
  f.kept = std::move(kept);
  f.cost_op = std::move(costs.cost_op);
  f.dtype = std::move(costs.dtype);
  f.flops = std::move(costs.flops);
  f.bytes = std::move(costs.bytes);
  f.heavy_op = std::move(costs.heavy_op);
  f.attention = std::move(costs.attention);
  f.weight_share = std::move(costs.weight_share);
  f.backward = std::move(costs.backward);
  f.gemm_mnk = std::move(costs.gemm_mnk);
}

// Each kept activity of rows [begin, end)'s point on the roofline, judged by the peak of its
// dtype, and the bytes it moved per second. The columns are sized already.
template <typename PeakFor>
void PlaceOnRoofline(const Trace& t, const join::Joined& j, PeakFor peak_for, double bw, std::size_t begin,
                     std::size_t end, ActivityFacts& f) {
  for (std::size_t i = begin; i < end; ++i) {
    if (!f.kept[i]) continue;
    const double dur_s = NsToSeconds(t.gpu.end_ns[i] - t.gpu.start_ns[i]);
    const double peak = peak_for(f.dtype[i]);
    const roofline::RooflinePoint p = roofline::Evaluate(f.flops[i], f.bytes[i], dur_s, peak, bw);
    f.peak_flops_per_s[i] = peak;
    if (f.flops[i] > 0 && f.bytes[i] > 0) f.arithmetic_intensity[i] = p.ai;
    f.ceiling_flops_per_s[i] = p.ceiling_flops_per_s;
    f.achieved_fraction[i] = p.peak_fraction;
    f.roofline_fraction[i] = p.roofline_fraction;
    double moved = f.bytes[i];
    if (f.cls[i] == ActivityClass::kMemory)
      moved = t.gpu.bytes[i] > 0 ? static_cast<double>(t.gpu.bytes[i]) : -1;
    if (f.cls[i] == ActivityClass::kCollective || f.cls[i] == ActivityClass::kP2P) {
      const model::CollectiveRowId c = j.collective[i];
      moved = c.has_value() ? static_cast<double>(t.collectives.bytes[c.index()]) : -1;
    }
    if (moved >= 0 && dur_s > 0) f.bytes_per_s[i] = moved / dur_s;
  }
}

// A window's figures: a kernel's run-level useful time, pro rata of the share it has in the window.
Figures FiguresOf(const SweepResult& s, const ActivityFacts& facts) {
  return ChargeSweep(s, facts.loss, [&facts](std::int32_t k, double share) {
    const double run_share = facts.share_ns[k];
    return run_share > 0 ? facts.useful_ns[k] * (share / run_share) : 0;
  });
}

std::vector<CollectiveInstance> CollectiveInstances(const Trace& t, const join::Joined& j,
                                                    const ActivityFacts& f) {
  std::vector<CollectiveInstance> out;
  std::unordered_set<std::string> listed_groups;
  const auto& c = t.collectives;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!f.kept[i] || (f.cls[i] != ActivityClass::kCollective && f.cls[i] != ActivityClass::kP2P)) continue;
    CollectiveInstance ci;
    ci.start_ns = t.gpu.start_ns[i];
    ci.end_ns = t.gpu.end_ns[i];
    ci.launch_ns = join::LaunchTime(t, j, i);
    ci.step = f.step_number[i];
    ci.p2p = f.cls[i] == ActivityClass::kP2P;
    ci.kernel = std::string(t.Str(t.gpu.name[i]));
    if (const model::CollectiveRowId row = j.collective[i]; row.has_value()) {
      const std::size_t r = row.index();
      ci.name = AsciiLower(t.Str(c.name[r]));
      ci.group = std::string(t.Str(c.pg_name[r]));
      // A group's member list can be kilobytes: it travels once per group and rank, not once
      // per instance (the cluster layer reads it from the first instance that has it).
      std::string_view ranks = t.Str(c.pg_ranks[r]);
      if (ci.group.empty() && !ranks.empty()) {
        ci.group = fmt::format("ranks#{:016x}", std::hash<std::string_view>{}(ranks));
      }
      if (listed_groups.insert(ci.group).second) ci.group_ranks = std::string(ranks);
      ci.seq = c.seq[r];
      ci.group_size = c.group_size[r];
      ci.group_rank = c.group_rank[r];
      ci.peer = c.peer[r];
      ci.bytes = c.bytes[r];
      if (ci.bytes < 0 && c.in_nelems[r] >= 0) {
        int width = roofline::DtypeBytes(roofline::ParseTorchDtype(t.Str(c.dtype[r])));
        if (width > 0) ci.bytes = c.in_nelems[r] * width;
      }
    } else {
      ci.name = ci.kernel;
    }
    ci.kind = join::ParseCollectiveKind(ci.name, ci.kernel);
    if (!ci.p2p) ci.exposed_s = f.share_ns[i] / static_cast<double>(kNsPerS);
    out.push_back(std::move(ci));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  return out;
}

// The sweeps of a rank: over its window and over each step's. They need only which activities
// are kept and their class, so they run beside the pricing.
struct Sweeps {
  std::vector<SweepActivity> acts;                               // every kept activity
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = kNoTime;  // the window
  std::int64_t kernels = 0;                                      // kept kernels
  SweepResult run;                                               // over the window
  std::vector<std::pair<std::int64_t, SweepResult>> steps;       // step number, over its window
  bool empty() const { return acts.empty() || hi <= lo; }
};

// The kept activities and their window; the sweeps come after, beside the pricing.
Sweeps KeptActivities(const Trace& t, const std::vector<char>& kept, const join::Joined& j) {
  Sweeps out;
  auto& acts = out.acts;
  acts.reserve(t.gpu.size());
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!kept[i]) continue;
    acts.push_back({t.gpu.start_ns[i], t.gpu.end_ns[i], j.cls[i], static_cast<std::int32_t>(i)});
    out.lo = std::min(out.lo, t.gpu.start_ns[i]);
    out.hi = std::max(out.hi, t.gpu.end_ns[i]);
    out.kernels += t.gpu.kind[i] == model::GpuKind::kKernel;
  }
  return out;
}

std::vector<std::pair<std::int64_t, SweepResult>> SweepSteps(const Trace& t, const join::Joined& j,
                                                             const std::vector<char>& kept,
                                                             std::span<const SweepActivity> kept_acts) {
  std::vector<std::pair<std::int64_t, SweepResult>> out;
  // Each step sweeps only the activities that can overlap its window: sorted by start, with a
  // running maximum of ends, both ends of that range are binary searches (O(S·N) otherwise).
  // Tracers mostly list activities by start: when no two starts tie or go back, that order is
  // the only sorted one, and the list is used as it is instead of sorting a copy.
  const auto by_start = [](const SweepActivity& a, const SweepActivity& b) {
    return a.start_ns < b.start_ns;
  };
  std::vector<SweepActivity> sorted;
  std::span<const SweepActivity> acts = kept_acts;
  if (std::adjacent_find(acts.begin(), acts.end(), std::not_fn(by_start)) != acts.end()) {
    sorted.assign(acts.begin(), acts.end());
    std::sort(sorted.begin(), sorted.end(), by_start);
    acts = sorted;
  }
  std::vector<TimeNs> max_end(acts.size());
  for (std::size_t i = 0; i < acts.size(); ++i) {
    max_end[i] = std::max(acts[i].end_ns, i > 0 ? max_end[i - 1] : kNoTime);
  }
  for (const auto& [s, window] : StepWindows(t, j, kept)) {
    auto first = std::upper_bound(max_end.begin(), max_end.end(), window.first) - max_end.begin();
    auto last = std::lower_bound(acts.begin(), acts.end(), window.second,
                                 [](const SweepActivity& a, TimeNs ts) { return a.start_ns < ts; }) -
                acts.begin();
    std::span<const SweepActivity> overlapping(acts.data() + first,
                                               std::max<std::ptrdiff_t>(0, last - first));
    out.emplace_back(j.steps[s].number, Sweep(overlapping, window.first, window.second));
  }
  return out;
}

// The rank's identity as the trace gives it.
RankVerdict RankHeader(const model::TraceInfo& info) {
  RankVerdict v;
  v.path = info.path;
  v.format = info.format;
  v.rank = info.rank;
  v.world_size = info.world_size;
  v.job_id = info.job_id;
  v.backend = info.backend;
  v.pg_config = info.pg_config;
  v.events = info.events;
  v.input_bytes = info.input_bytes;
  return v;
}

// The device a rank is judged on, with the dtype and math mode of its headline peak.
struct JudgedDevice {
  const roofline::DeviceSpec* spec = nullptr;
  roofline::Dtype dtype = roofline::Dtype::kUnknown;  // the dominant dtype: the headline peak's
  roofline::MathMode math = roofline::MathMode::kTf32;
  // The peak an activity of dtype `d` is judged by (--peak-tflops, else its dtype's; unknown
  // dtypes take the headline's).
  double PeakFor(roofline::Dtype d, const AnalyzeOptions& o) const {
    if (o.peak_flops_per_s) return *o.peak_flops_per_s;
    return roofline::PeakFlops(*spec, d == roofline::Dtype::kUnknown ? dtype : d, math);
  }
};

// The counter model over the device tier's samples, for the dominant dtype's peak (docs/counters.md);
// nullopt without pipe activity.
std::optional<roofline::CounterEstimate> CounterEstimateOf(const DeviceActivity& tier,
                                                           const JudgedDevice& d) {
  if (!tier.any()) return std::nullopt;
  roofline::CounterEstimate e = roofline::EstimateFromCounters(tier.Reading(), d.spec, d.dtype, d.math);
  if (!e.valid) return std::nullopt;
  return e;
}

// The headline figures of the device (name, peak, bandwidth, price), the options' overrides said.
void DescribeDevice(const JudgedDevice& d, const AnalyzeOptions& o, DeviceChoice& device) {
  device.name = std::string(d.spec->name);
  device.key = std::string(d.spec->key);
  device.peak_dtype = roofline::PeakLabel(*d.spec, d.dtype, d.math);
  device.peak_flops_per_s = o.peak_flops_per_s.value_or(roofline::PeakFlops(*d.spec, d.dtype, d.math));
  device.memory_bandwidth_bytes_per_s =
      o.memory_bandwidth_bytes_per_s.value_or(d.spec->memory_bandwidth_bytes_per_s);
  device.price_per_gpu_hour = o.price_per_gpu_hour.value_or(d.spec->price_per_gpu_hour);
  if (o.peak_flops_per_s) device.source += ", --peak-tflops";
  if (o.memory_bandwidth_bytes_per_s) device.source += ", --peak-bandwidth-gbps";
}

// Rows per part of the per-activity loops: below this, a thread costs more than it saves.
constexpr std::size_t kRowsPerPart = 1 << 14;

// The roofline pass: every kept activity placed on the roofline of its dtype's peak. The
// per-activity loops write only their own rows: they split in contiguous parts.
void PlaceEveryActivity(const Trace& t, const join::Joined& j, const JudgedDevice& d, double bw,
                        const AnalyzeOptions& o, ActivityFacts& f) {
  const std::size_t n = t.gpu.size();
  f.peak_flops_per_s.assign(n, 0);
  f.arithmetic_intensity.assign(n, -1);
  f.ceiling_flops_per_s.assign(n, 0);
  f.achieved_fraction.assign(n, 0);
  f.roofline_fraction.assign(n, 0);
  f.bytes_per_s.assign(n, -1);
  const auto peak_for = [&](roofline::Dtype dtype) { return d.PeakFor(dtype, o); };
  RunOverParts(o.rank_threads, n, PartsFor(n, o.rank_threads, kRowsPerPart),
               [&](std::size_t, std::size_t begin, std::size_t end) {
                 PlaceOnRoofline(t, j, peak_for, bw, begin, end, f);
               });
}

// Why a rank with nothing to sweep has no GPU verdict.
std::string NoGpuReason(const Trace& t, const join::Joined& j, const Sweeps& sweeps, const AnalyzeOptions& o,
                        const model::DataQuality& quality) {
  if (j.graphs.summary.kind == join::TraceKind::kCapture) {
    return fmt::format(
        "a graph capture: {} launches recorded in {} captures ran no GPU work here; they run "
        "when the graph is replayed (analyze the replay with --graph-capture)",
        j.graphs.summary.captured_launches, j.graphs.summary.captures);
  }
  // Launch calls with no GPU record behind them: the device's records were lost (the profiler was
  // not flushed or stopped before exit, or its buffers overflowed), not a CPU-only run.
  std::int64_t launches = 0;
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    const std::string_view name = t.Str(t.api.name[a]);
    launches += name.find("LaunchKernel") != std::string_view::npos ||
                name.find("GraphLaunch") != std::string_view::npos || name.starts_with("cudaMemcpy") ||
                name.starts_with("hipMemcpy") || name.starts_with("cuMemcpy");
  }
  std::string reason =
      t.gpu.size() == 0 && launches > 0 && quality.Get(Dq::kCuptiRangeProfilerEvents) == 0
          ? fmt::format(
                "the trace has no GPU activity, though the host made {} kernel launch and copy calls: "
                "their GPU records were lost (the profiler was not stopped or flushed before the "
                "program exited, or its activity buffers overflowed); profile again, stopping the "
                "profiler (prof.stop(), or the with-block's exit) before exit",
                launches)
      : t.gpu.size() == 0    ? "the trace has no GPU activity (no kernels, memcpy or memset): "
                               "it was taken on CPU only, or in a mode that records no timeline"
      : !sweeps.acts.empty() ? "no GPU activity: every kernel, memcpy and memset has zero duration"
      : o.steps              ? "no GPU activity is left after --steps: " + StepsThatExist(j)
                             : "no GPU activity is the run's: all of it was queued before profiling "
                               "began or lies far outside the rest (see data quality)";
  if (quality.Get(Dq::kCuptiRangeProfilerEvents) > 0) {
    reason += " (CUPTI range-profiler mode: counters, no kernel timeline)";
  }
  return reason;
}

// The charge pass: each activity's share of the window, the loss it is charged to, its bound and
// its useful time (FLOPs at its peak, at most its share). Each activity has one share: parts of
// the list write distinct rows.
void ChargeShares(const Trace& t, SweepResult& run, const KernelCosts& costs, double peak, double bw,
                  const AnalyzeOptions& o, ActivityFacts& f, model::DataQuality& quality) {
  const std::size_t n = t.gpu.size();
  const std::size_t parts = PartsFor(n, o.rank_threads, kRowsPerPart);
  f.idle_gaps = std::move(run.idle_gaps);
  f.share_ns.assign(n, 0);
  f.useful_ns.assign(n, 0);
  f.loss.assign(n, Loss::kHostBoundIdle);
  f.bound.assign(n, Bound::kCompute);
  std::vector<std::int64_t> above_peak(parts, 0);
  RunOverParts(o.rank_threads, run.shares.size(), parts,
               [&](std::size_t p, std::size_t begin, std::size_t end) {
                 for (std::size_t s = begin; s < end; ++s) {
                   const auto [k, share] = run.shares[s];
                   f.share_ns[k] = share;
                   f.loss[k] = LossOfActivity(f.cls[k], f.flops[k], f.bytes[k],
                                              roofline::BelowRidge(costs.op_ai[k], peak, bw));
                   f.bound[k] = BoundOfLoss(f.loss[k]);
                   if (f.cls[k] != ActivityClass::kCompute || f.flops[k] <= 0 || peak <= 0) continue;
                   // Work in a dtype with a faster pipe than P's (fp8, fp4 beside bf16) is judged by that
                   // pipe; a slower dtype's stays judged by P (docs/verdict.md, "Compute").
                   double ideal_ns = SecondsToNs(f.flops[k] / std::max(peak, f.peak_flops_per_s[k]));
                   double dur_ns = static_cast<double>(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
                   if (ideal_ns > dur_ns * kAbovePeakTolerance) ++above_peak[p];
                   f.useful_ns[k] = std::min(ideal_ns, share);
                 }
               });
  for (std::int64_t count : above_peak) quality.Add(Dq::kFlopsAbovePeak, count);
}

// Compute-kernel time and the part of it a FLOP or byte model priced (the model coverage).
void CountModeledCompute(const Trace& t, const ActivityFacts& f, RankVerdict& v,
                         model::DataQuality& quality) {
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k] || f.cls[k] != ActivityClass::kCompute) continue;
    const double dur_s = NsToSeconds(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
    v.compute_kernel_s += dur_s;
    if (f.flops[k] >= 0 || f.bytes[k] >= 0) {
      v.modeled_compute_s += dur_s;
    } else {
      quality.Add(Dq::kUnmodeledKernel);
    }
  }
}

// The window's figures and the peer figures (HTA's temporal breakdown) from the run's sweep.
void RunFigures(const SweepResult& run, const ActivityFacts& f, RankVerdict& v) {
  v.run = FiguresOf(run, f);
  v.gpu_busy_s = NsToSeconds(run.busy_union_ns);
  v.compute_s = NsToSeconds(run.compute_union_ns);
  v.communication_s = NsToSeconds(run.communication_union_ns);
  v.communication_overlapped_s = NsToSeconds(run.communication_overlapped_ns);
}

// How many top kernels the rank keeps per --top: more than the job lists, so that merging the
// ranks' lists still finds the job's top (job/combine.cc).
constexpr std::size_t kKernelsKeptPerTop = 4;

// The roll-up pass: each reads the facts table and writes its own part of the verdict, all at
// once on the rank's threads, the costliest first. The layer ranges only when a sink reads them.
RangeLedger RollUp(const Trace& t, const join::Joined& j, const ActivityFacts& f, const SweepResult& run,
                   const JudgedDevice& d, double bw, const AnalyzeOptions& o, RankVerdict& v) {
  RangeLedger ranges;
  const std::function<void()> rollups[] = {
      [&] {
        v.evidence = CollectEvidence(t, j, f);
        v.evidence.host_idle = AttributeHostIdle(t, f, v.run.start_ns, v.run.end_ns);
        v.evidence.comm_roles = AttributeCommRoles(t, j, f);
        v.evidence.fp32_tensor_peak_flops_per_s =
            roofline::PeakFlops(*d.spec, roofline::Dtype::kFp32, roofline::MathMode::kTf32);
      },
      [&] {
        AggregateKernels(t, f, bw, o.top_n * kKernelsKeptPerTop, v);
        v.device_tier = DeviceActivityOver(t, v.run.start_ns, v.run.end_ns);
        v.counter_estimate = CounterEstimateOf(v.device_tier, d);
      },
      [&] {
        v.collectives = CollectiveInstances(t, j, f);
        v.op_times = CollectOpTimes(t, f);
      },
      [&] { v.layers = RollUpLayers(t, j, f, v.run.wall_s); },
      [&] { v.worst_instant_ns = WorstInstants(t, f, run); },
      [&] {
        if (o.observer) ranges = RollUpRanges(t, j, f);
      },
  };
  RunConcurrently(o.rank_threads, rollups);
  return ranges;
}

// A training step's backward pass costs about twice its forward: modeled backward FLOPs of at
// least this many times the forward's say the backward is modeled, and 3 × forward is the step's.
constexpr double kModeledBackwardOverForward = 1.5;
constexpr double kTrainingStepOverForward = 3;

// FLOPs: hardware (HFU, every modeled kernel) and model (MFU: given per step, or derived from
// the forward GEMM/attention/conv work).
void CountFlops(const Trace& t, const ActivityFacts& f, const AnalyzeOptions& o, RankVerdict& v) {
  double forward_heavy = 0, backward_heavy = 0;
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k] || f.flops[k] <= 0) continue;
    v.hardware_flops += f.flops[k];
    if (!f.heavy_op[k]) continue;
    (f.backward[k] ? backward_heavy : forward_heavy) += f.flops[k];
  }
  const std::size_t steps_in_window = v.steps.size();
  if (o.model_flops_per_step && steps_in_window > 0) {
    v.model_flops = *o.model_flops_per_step * static_cast<double>(steps_in_window);
    v.model_flops_source = "--model-flops-per-step";
  } else if (forward_heavy > 0 && backward_heavy == 0) {
    v.model_flops = forward_heavy;
    v.model_flops_source = "derived: forward GEMM/attention/conv FLOPs (no backward pass in the trace)";
  } else if (forward_heavy > 0 && backward_heavy >= kModeledBackwardOverForward * forward_heavy) {
    // Fewer modeled backward FLOPs than that mean unmodeled backward kernels, and 3x forward
    // would overstate MFU beside HFU.
    v.model_flops = kTrainingStepOverForward * forward_heavy;
    v.model_flops_source =
        "derived: 3 x forward GEMM/attention/conv FLOPs (training step, no recomputation assumed)";
  } else if (forward_heavy > 0) {
    v.model_flops_source = "not derived: backward FLOPs are only partly modeled; pass --model-flops-per-step";
  }
}

}  // namespace

// The passes in order: join → window → price (beside the device, the sweeps and the join's
// facts) → roofline → charge → roll-up → FLOPs. The trace stays as ingest left it; the rank's
// data quality starts from the reader's counters.
Result<RankVerdict> AnalyzeRank(const Trace& t, const AnalyzeOptions& o) {
  RankVerdict v = RankHeader(t.info);
  model::DataQuality quality = t.quality;
  const join::Joined j = join::Join(t, quality, o.rank_threads);
  std::vector<char> kept = SelectActivities(t, j, o, quality);
  ExcludeStrayActivities(t, kept, quality);
  FlagLongWindows(t, kept, quality);

  // Pricing, the sweeps and the facts that need no pricing read only the join and which
  // activities are kept: they run at once, the costliest first.
  KernelCosts costs;
  Result<const roofline::DeviceSpec*> spec = nullptr;
  Sweeps sweeps = KeptActivities(t, kept, j);
  ActivityFacts f;
  const std::function<void()> priced_and_swept[] = {
      [&] {
        costs = PriceKernels(t, j, kept, quality);
        spec = ChooseDevice(t, o, v.device, quality);
      },
      [&] {
        if (!sweeps.empty()) sweeps.run = Sweep(sweeps.acts, sweeps.lo, sweeps.hi);
      },
      [&] {
        if (!sweeps.empty()) sweeps.steps = SweepSteps(t, j, kept, sweeps.acts);
      },
      [&] { JoinFacts(t, j, f); },
  };
  RunConcurrently(o.rank_threads, priced_and_swept);
  if (!spec) return std::unexpected(spec.error());
  roofline::DeviceSpec measured;  // the row with measured ceilings in place of its peaks
  if (o.ceiling == roofline::CeilingKind::kMeasured) {
    const roofline::DeviceCeilings* m = o.ceilings ? o.ceilings->Find((*spec)->key) : nullptr;
    if (m == nullptr) {
      return Fail(
          "--ceiling measured: {} has no measured ceilings for {} (scripts/gpu-check.sh measures them)",
          o.ceilings ? o.ceilings->path : std::string("no --ceilings file"), (*spec)->key);
    }
    measured = roofline::WithMeasuredCeilings(**spec, *m);
    spec = &measured;
    v.device.ceiling = "measured";
    v.device.ceiling_source =
        fmt::format("{}{}{}", o.ceilings->path, m->measured_at.empty() ? "" : ", ", m->measured_at);
  }
  // The headline math mode is the window's, not one kernel's: no convolution, no kernel name.
  const JudgedDevice device{
      *spec, DominantDtype(t, costs, kept),
      roofline::ChooseMathMode(o.fp32_math, /*is_convolution=*/false, /*kernel_name=*/"")};
  DescribeDevice(device, o, v.device);
  const double peak = v.device.peak_flops_per_s;
  const double bw = v.device.memory_bandwidth_bytes_per_s;
  CostFacts(std::move(kept), costs, f);
  PlaceEveryActivity(t, j, device, bw, o, f);

  v.kernels = sweeps.kernels;
  v.kept_activities = static_cast<std::int64_t>(sweeps.acts.size());
  if (sweeps.empty()) {
    v.no_gpu_reason = NoGpuReason(t, j, sweeps, o, quality);
    CountGraphLaunches(j.graphs.summary, v.evidence);
    v.device_tier = DeviceActivityOver(t, kNoTime, kNoTime);
    v.counter_estimate = CounterEstimateOf(v.device_tier, device);
    v.quality = quality;
    return v;
  }

  ChargeShares(t, sweeps.run, costs, peak, bw, o, f, quality);
  CountModeledCompute(t, f, v, quality);
  RunFigures(sweeps.run, f, v);
  const RangeLedger ranges = RollUp(t, j, f, sweeps.run, device, bw, o, v);
  for (const auto& [number, sweep] : sweeps.steps) v.steps.push_back({number, FiguresOf(sweep, f)});
  ReadIterations(t, j, f, v);
  CountFlops(t, f, o, v);
  v.capacity_flops = peak * v.run.wall_s;
  v.quality = quality;
  if (o.keep_activities || o.observer) {
    const RankDetail detail{t, j, f, v, ranges};
    if (o.keep_activities) v.activities = std::make_shared<const ActivityTable>(BuildActivityTable(detail));
    if (o.observer) o.observer->OnRank(detail);
  }
  return v;
}

}  // namespace plasmient::verdict
