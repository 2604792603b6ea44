// Iterations from the timeline and the host costs that happened once, early (docs/verdict.md,
// "Warm-up").
#include "verdict/iterations.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "verdict/facts.h"

namespace plasmient::verdict {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One candidate marker: its name and its starts, by time.
struct Candidate {
  std::string_view name;
  std::vector<TimeNs> starts;
};

// When each kept activity was issued (its launch's start, or its own start without one) and when
// it started on the GPU, by issue time.
struct Issued {
  std::vector<TimeNs> issue_ns, gpu_start_ns;
};

// The candidate's iterations when every period between its starts launches the same work, else
// nullopt. Each iteration's window is the GPU's, as a step's is (docs/verdict.md, "The window"):
// from the earliest start of the activities it issued to the next iteration's, so that host time
// the GPU never waited for (a host running ahead) does not count.
std::optional<Iterations> Evaluate(const Candidate& c, const Issued& issued) {
  const std::vector<TimeNs>& times = issued.issue_ns;
  const std::size_t n = c.starts.size();
  if (n < kIterationMinMarkers) return std::nullopt;
  std::vector<std::int64_t> counts(n - 1);
  std::vector<TimeNs> gpu_start(n, std::numeric_limits<TimeNs>::max());
  std::int64_t covered = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto lo = std::lower_bound(times.begin(), times.end(), c.starts[i]);
    const auto hi = i + 1 < n ? std::lower_bound(times.begin(), times.end(), c.starts[i + 1]) : times.end();
    for (auto k = lo; k != hi; ++k)
      gpu_start[i] = std::min(gpu_start[i], issued.gpu_start_ns[k - times.begin()]);
    if (i + 1 == n) break;
    counts[i] = hi - lo;
    if (counts[i] == 0) return std::nullopt;  // a period that launches nothing is no iteration
    covered += counts[i];
  }
  if (gpu_start[n - 1] == std::numeric_limits<TimeNs>::max()) gpu_start.pop_back();  // issued nothing
  for (std::size_t i = 0; i + 1 < gpu_start.size(); ++i) {
    if (gpu_start[i + 1] <= gpu_start[i]) return std::nullopt;  // the GPU ran them out of order
  }
  if (static_cast<double>(covered) < kIterationMinCoverage * static_cast<double>(times.size()))
    return std::nullopt;
  std::vector<std::int64_t> steady(counts.begin() + 1, counts.end());
  std::sort(steady.begin(), steady.end());
  const auto median = static_cast<double>(steady[steady.size() / 2]);
  const double lo = (1 - kIterationWorkTolerance) * median, hi = (1 + kIterationWorkTolerance) * median;
  for (std::int64_t s : steady) {
    if (static_cast<double>(s) < lo || static_cast<double>(s) > hi) return std::nullopt;
  }
  if (static_cast<double>(counts.front()) < lo) return std::nullopt;
  Iterations it;
  it.marker = std::string(c.name);
  it.occurrences = static_cast<std::int64_t>(n);
  it.start_ns = gpu_start;
  for (std::size_t i = 0; i + 1 < gpu_start.size(); ++i)
    it.wall_s.push_back(NsToSeconds(gpu_start[i + 1] - gpu_start[i]));
  it.activities = static_cast<std::int64_t>(median);
  if (it.wall_s.size() < kWarmUpMinSteps) return std::nullopt;
  return it;
}

// The best of the candidates: the most iterations, then the earliest first start, then the name.
std::optional<Iterations> Best(std::vector<Candidate>& candidates, const Issued& issued) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.starts.size() != b.starts.size()) return a.starts.size() > b.starts.size();
    if (a.starts.front() != b.starts.front()) return a.starts.front() < b.starts.front();
    return a.name < b.name;
  });
  for (const Candidate& c : candidates) {
    if (auto it = Evaluate(c, issued)) return it;
  }
  return std::nullopt;
}

// The kept activities by issue time: their launch's start (`by_launch`, when they have one), else
// their own start.
Issued IssueTimes(const model::Trace& t, const ActivityFacts& f, bool by_launch) {
  std::vector<std::pair<TimeNs, TimeNs>> pairs;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!f.kept[i]) continue;
    pairs.emplace_back(
        by_launch && f.launch[i].has_value() ? t.api.start_ns[f.launch[i].index()] : t.gpu.start_ns[i],
        t.gpu.start_ns[i]);
  }
  std::sort(pairs.begin(), pairs.end());
  Issued out;
  for (const auto& [issue, start] : pairs) {
    out.issue_ns.push_back(issue);
    out.gpu_start_ns.push_back(start);
  }
  return out;
}

}  // namespace

Iterations FindIterations(const model::Trace& t, const ActivityFacts& f) {
  // Host ranges that no other range on their thread holds, by thread and name.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> by_thread;
  for (std::size_t r = 0; r < t.cpu.size(); ++r) {
    if (t.cpu.kind[r] != model::CpuOpKind::kStep) by_thread[{t.cpu.pid[r], t.cpu.tid[r]}].push_back(r);
  }
  std::vector<Candidate> candidates;
  for (auto& [thread, rows] : by_thread) {
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      return t.cpu.start_ns[a] != t.cpu.start_ns[b] ? t.cpu.start_ns[a] < t.cpu.start_ns[b]
                                                    : t.cpu.end_ns[a] > t.cpu.end_ns[b];
    });
    std::unordered_map<std::uint32_t, std::size_t> index;  // name → candidate
    TimeNs held_to = std::numeric_limits<TimeNs>::min();
    for (std::size_t r : rows) {
      if (t.cpu.start_ns[r] < held_to) {
        held_to = std::max(held_to, t.cpu.end_ns[r]);
        continue;
      }
      held_to = t.cpu.end_ns[r];
      auto [at, fresh] = index.try_emplace(t.cpu.name[r].value, candidates.size());
      if (fresh) candidates.push_back({t.Str(t.cpu.name[r]), {}});
      candidates[at->second].starts.push_back(t.cpu.start_ns[r]);
    }
  }
  std::erase_if(candidates, [](const Candidate& c) { return c.starts.size() < kIterationMinMarkers; });
  if (!candidates.empty()) {
    if (auto it = Best(candidates, IssueTimes(t, f, true))) {
      it->source = "host_range";
      return *it;
    }
  }
  // No host range recurs so: the kernels, their periods counted by what starts on the GPU.
  candidates.clear();
  std::unordered_map<std::uint32_t, std::size_t> index;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (f.kept[i] && t.gpu.kind[i] == model::GpuKind::kKernel) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return t.gpu.start_ns[a] != t.gpu.start_ns[b] ? t.gpu.start_ns[a] < t.gpu.start_ns[b] : a < b;
  });
  for (std::size_t i : order) {
    auto [at, fresh] = index.try_emplace(t.gpu.name[i].value, candidates.size());
    if (fresh) candidates.push_back({t.Str(t.gpu.name[i]), {}});
    candidates[at->second].starts.push_back(t.gpu.start_ns[i]);
  }
  std::erase_if(candidates, [](const Candidate& c) { return c.starts.size() < kIterationMinMarkers; });
  if (!candidates.empty()) {
    if (auto it = Best(candidates, IssueTimes(t, f, false))) {
      it->source = "gpu_kernel";
      return *it;
    }
  }
  return {};
}

std::vector<OnceEarlyCost> OnceEarlyCosts(const model::Trace& t, const HostIdleCauses& idle,
                                          std::span<const TimeNs> boundaries_ns, std::size_t early,
                                          double steady_iteration_s) {
  std::vector<OnceEarlyCost> out;
  if (early == 0 || early + 2 > boundaries_ns.size()) return out;  // two steady iterations at least
  const TimeNs from = boundaries_ns.front(), steady_from = boundaries_ns[early];
  // (cause, name) → (early ns, steady ns)
  std::map<std::pair<HostCause, std::uint32_t>, std::pair<TimeNs, TimeNs>> by_range;
  for (const HostIdleSlice& s : idle.slices) {
    if (s.name.empty()) continue;
    switch (s.cause) {
      case HostCause::kCompile:
      case HostCause::kGraphCapture:
      case HostCause::kProfilerOverhead:
      case HostCause::kUnseenWait:
      case HostCause::kUnknown:
        continue;
      default:
        break;
    }
    if (s.end_ns <= from) continue;  // before the first iteration: the program's setup, not the loop's
    auto& [early_ns, steady_ns] = by_range[{s.cause, s.name.value}];
    const TimeNs start = std::max(s.start_ns, from);
    const TimeNs before = std::clamp(steady_from, start, s.end_ns);
    early_ns += before - start;
    steady_ns += s.end_ns - before;
  }
  for (const auto& [key, ns] : by_range) {
    const auto [early_ns, steady_ns] = ns;
    if (NsToSeconds(early_ns) < kOnceEarlyMinShareOfIteration * steady_iteration_s ||
        static_cast<double>(steady_ns) > kOnceEarlyMaxRecurrence * static_cast<double>(early_ns))
      continue;
    out.push_back({std::string(t.Str(StringId{key.second})), key.first, NsToSeconds(early_ns)});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const OnceEarlyCost& a, const OnceEarlyCost& b) { return a.idle_s > b.idle_s; });
  return out;
}

double SteadyCompileCaptureSeconds(const HostIdleCauses& idle, std::span<const TimeNs> boundaries_ns,
                                   std::size_t early) {
  if (early >= boundaries_ns.size()) return 0;
  const TimeNs steady_from = boundaries_ns[early];
  TimeNs ns = 0;
  for (const HostIdleSlice& s : idle.slices) {
    if (s.cause != HostCause::kCompile && s.cause != HostCause::kGraphCapture) continue;
    if (s.end_ns > steady_from) ns += s.end_ns - std::max(s.start_ns, steady_from);
  }
  // What the steady iterations hold, and as much again per leading iteration at their rate.
  const auto steady = static_cast<double>(boundaries_ns.size() - early);
  return NsToSeconds(ns) * (1 + static_cast<double>(early) / steady);
}

void ReadIterations(const model::Trace& t, const join::Joined& j, const ActivityFacts& f, RankVerdict& v) {
  std::vector<TimeNs> boundaries;
  std::vector<StepFigures> periods;
  if (!j.steps.empty()) {
    // The kept steps' GPU windows, which tile the timeline.
    for (const StepFigures& s : v.steps) boundaries.push_back(s.figures.start_ns);
    if (!std::is_sorted(boundaries.begin(), boundaries.end())) return;
    periods = v.steps;
  } else {
    v.iterations = FindIterations(t, f);
    boundaries = v.iterations.start_ns;
    for (double w : v.iterations.wall_s) {
      StepFigures s;
      s.number = static_cast<std::int64_t>(periods.size());
      s.figures.wall_s = w;
      periods.push_back(s);
    }
  }
  if (periods.size() < kWarmUpMinSteps) return;
  const SlowLeadingSteps slow = LeadingSlowSteps(periods, /*last_complete=*/j.steps.empty());
  std::vector<OnceEarlyCost> costs = OnceEarlyCosts(t, v.evidence.host_idle, boundaries,
                                                    std::max<std::size_t>(slow.count, 1), slow.reference_s);
  for (const auto& c : costs) v.once_early_s += c.idle_s;  // all of them, the names kept bounded
  v.steady_compile_capture_s =
      SteadyCompileCaptureSeconds(v.evidence.host_idle, boundaries, std::max<std::size_t>(slow.count, 1));
  if (costs.size() > kOnceEarlyKept) costs.resize(kOnceEarlyKept);
  v.once_early = std::move(costs);
}

SlowLeadingSteps LeadingSlowSteps(std::span<const StepFigures> steps, bool last_complete) {
  const std::size_t n = steps.size();
  if (n < kWarmUpMinSteps) return {};
  // The median of the steps after step k. The last step is left out while two others remain: its
  // window ends at its last activity, not at the next step's start, so it reads short.
  auto reference = [&](std::size_t k) {
    const std::size_t end = !last_complete && n - (k + 1) >= 3 ? n - 1 : n;
    std::vector<double> later;
    for (std::size_t i = k + 1; i < end; ++i) later.push_back(steps[i].figures.wall_s);
    return Median(std::move(later));
  };
  SlowLeadingSteps out;
  while (out.count < n / 2 && steps[out.count].figures.wall_s > kWarmUpStepRatio * reference(out.count)) {
    ++out.count;
  }
  out.reference_s = reference(out.count == 0 ? 0 : out.count - 1);
  return out;
}

}  // namespace plasmient::verdict
