#include "verdict/column.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "join/layer_tree.h"
#include "verdict/facts.h"
#include "verdict/layers.h"
#include "verdict/sweep.h"

namespace plasmient::verdict {
namespace {

using join::ActivityClass;

std::string_view HostKind(model::CpuOpKind k) {
  switch (k) {
    case model::CpuOpKind::kOp:
      return "op";
    case model::CpuOpKind::kAnnotation:
      return "annotation";
    case model::CpuOpKind::kStep:
      return "step";
    case model::CpuOpKind::kModule:
      return "module";
  }
  return "op";
}

double Ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

// "rank 3", or "the trace" when it does not say its rank.
std::string Whose(std::int64_t rank) { return rank >= 0 ? fmt::format("rank {}", rank) : "the trace"; }

ColumnActivity ColumnActivityOf(const RankDetail& d, const join::LayerTree& tree, std::size_t i) {
  const auto& t = d.trace;
  const auto& f = d.facts;
  ColumnActivity a;
  a.row = static_cast<std::int32_t>(i);
  a.name = std::string(t.Str(t.gpu.name[i]));
  a.device = t.gpu.device[i];
  a.stream = t.gpu.stream[i];
  a.start_ns = t.gpu.start_ns[i];
  a.end_ns = t.gpu.end_ns[i];
  a.cls = f.cls[i];
  a.modeled = f.flops[i] > 0 || f.bytes[i] > 0;
  a.achieved_fraction = f.achieved_fraction[i];
  a.roofline_fraction = f.roofline_fraction[i];
  a.bound = f.bound[i];
  a.loss = f.loss[i];
  if (f.op[i].has_value()) a.op = std::string(t.Str(t.cpu.name[f.op[i].index()]));
  std::int32_t node = i < tree.activity.size() ? tree.activity[i] : -1;
  if (node >= 0 && !IsCatchAllLayer(tree.nodes[node].path)) a.layer = tree.nodes[node].path;
  a.step = f.step_number[i];
  if (f.launch[i].has_value()) {
    a.launch = std::string(t.Str(t.api.name[f.launch[i].index()]));
    a.launch_ns = t.api.start_ns[f.launch[i].index()];
  }
  if (const model::CollectiveRowId c = d.joined.collective[i]; c.has_value()) {
    a.collective = std::string(t.Str(t.collectives.name[c.index()]));
    a.collective_bytes = t.collectives.bytes[c.index()];
  }
  return a;
}

bool IsComputeLoss(Loss l) {
  return l == Loss::kComputeInefficiency || l == Loss::kMemoryBound || l == Loss::kUnmodeledKernels;
}

}  // namespace

std::int64_t StepAt(const RankVerdict& v, TimeNs ts) {
  auto it = std::upper_bound(v.steps.begin(), v.steps.end(), ts,
                             [](TimeNs x, const StepFigures& s) { return x < s.figures.start_ns; });
  if (it == v.steps.begin()) return -1;
  --it;
  return ts < it->figures.end_ns ? it->number : -1;
}

std::array<TimeNs, kLossCount> WorstInstants(const model::Trace& t, const ActivityFacts& f,
                                             const SweepResult& run) {
  std::array<TimeNs, kLossCount> out = FilledWith<kLossCount>(kNoTime);
  const auto& g = t.gpu;
  std::array<std::optional<std::size_t>, kLossCount> kernel;  // most lost time, by loss
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (!f.kept[i] || f.cls[i] != ActivityClass::kCompute || f.lost_ns(i) <= 0) continue;
    auto& best = kernel[static_cast<std::size_t>(f.loss[i])];
    if (!best || f.lost_ns(i) > f.lost_ns(*best)) best = i;
  }
  std::array<std::optional<std::pair<TimeNs, TimeNs>>, kLossCount> longest;
  for (std::size_t c = 0; c < run.longest_stretch.size(); ++c) {
    if (c == static_cast<std::size_t>(ActivityClass::kCompute)) continue;
    const Loss l = c == kIdleStretch ? Loss::kHostBoundIdle : LossOfSlice(static_cast<ActivityClass>(c));
    longest[static_cast<std::size_t>(l)] = run.longest_stretch[c];
  }
  for (std::size_t l = 0; l < kLossCount; ++l) {
    if (IsComputeLoss(static_cast<Loss>(l))) {
      if (auto k = kernel[l]) out[l] = g.start_ns[*k] + (g.end_ns[*k] - g.start_ns[*k]) / 2;
    } else if (auto s = longest[l]) {
      out[l] = s->first + (s->second - s->first) / 2;
    }
  }
  return out;
}

std::optional<FixInstant> FirstFixInstant(const JobVerdict& job) {
  if (job.fixes.empty()) return std::nullopt;
  const Fix& first = job.fixes.front();
  // Host-bound idle: an instant of the cause the fix acts on (its longest slice, on the rank with
  // the most of it), so `explain` there names the same cause as the fix.
  if (first.loss == Loss::kHostBoundIdle && !first.causes.empty()) {
    const HostCause cause = HostCauseFromName(first.causes.front().kind);
    const RankVerdict* best = nullptr;
    for (const auto& r : job.ranks) {
      const HostCauseFigures& c = r.evidence.host_idle[cause];
      if (c.longest_start_ns == kNoTime) continue;
      if (!best || c.idle_s > best->evidence.host_idle[cause].idle_s) best = &r;
    }
    if (best) {
      const HostCauseFigures& c = best->evidence.host_idle[cause];
      return FixInstant{
          best->rank, c.longest_start_ns + (c.longest_end_ns - c.longest_start_ns) / 2 - best->run.start_ns};
    }
  }
  const auto l = static_cast<std::size_t>(first.loss);
  const RankVerdict* best = nullptr;
  for (const auto& r : job.ranks) {
    if (r.worst_instant_ns[l] == kNoTime) continue;
    if (!best || r.run.loss_s[l] > best->run.loss_s[l]) best = &r;
  }
  if (!best) return std::nullopt;
  return FixInstant{best->rank, best->worst_instant_ns[l] - best->run.start_ns};
}

Result<TimeNs> ResolveInstant(const InstantSpec& spec, const RankDetail& d, Loss worst_loss) {
  const Figures& run = d.verdict.run;
  const std::int64_t rank = d.verdict.rank;
  switch (spec.kind) {
    case InstantSpec::Kind::kWorst: {
      const auto& at = d.verdict.worst_instant_ns;
      if (TimeNs t = at[static_cast<std::size_t>(worst_loss)]; t != kNoTime) return t;
      // The job's largest loss is absent on this rank: its own largest loss instead.
      auto own = std::max_element(run.loss_s.begin(), run.loss_s.end()) - run.loss_s.begin();
      if (TimeNs t = at[static_cast<std::size_t>(own)]; t != kNoTime) return t;
      return Fail("{} has no lost time to show", Whose(rank));
    }
    case InstantSpec::Kind::kStep: {
      for (const auto& s : d.verdict.steps) {
        if (s.number != spec.step) continue;
        TimeNs t = s.figures.start_ns + spec.offset_ns;
        if (spec.offset_ns < 0 || t >= s.figures.end_ns) {
          return Fail("step {} of {} lasts {:.3f} ms: +{:.3f} ms is outside it", spec.step, Whose(rank),
                      Ms(s.figures.end_ns - s.figures.start_ns), Ms(spec.offset_ns));
        }
        return t;
      }
      if (d.verdict.steps.empty()) return Fail("{} has no ProfilerStep in its window", Whose(rank));
      std::string list;
      for (const auto& s : d.verdict.steps) list += (list.empty() ? "" : ", ") + std::to_string(s.number);
      return Fail("{} has no step {}: its steps are {}", Whose(rank), spec.step, list);
    }
    case InstantSpec::Kind::kOffset:
      break;
  }
  TimeNs t = run.start_ns + spec.offset_ns;
  if (spec.offset_ns < 0 || t >= run.end_ns) {
    return Fail("t = {:.3f} ms is outside {}'s window, which runs from 0 to {:.3f} ms", Ms(spec.offset_ns),
                Whose(rank), Ms(run.end_ns - run.start_ns));
  }
  return t;
}

void IntervalIndex::Add(TimeNs start_ns, TimeNs end_ns, std::uint32_t id) {
  rows_.push_back({start_ns, end_ns, id});
}

void IntervalIndex::Build() {
  std::stable_sort(rows_.begin(), rows_.end(),
                   [](const Row& a, const Row& b) { return a.start_ns < b.start_ns; });
  max_end_.assign(rows_.empty() ? 0 : 4 * rows_.size(), 0);
  // Bottom-up over the same recursion Visit descends.
  auto build = [&](auto& self, std::size_t node, std::size_t lo, std::size_t hi) -> TimeNs {
    if (hi - lo == 1) return max_end_[node] = rows_[lo].end_ns;
    std::size_t mid = lo + (hi - lo) / 2;
    return max_end_[node] = std::max(self(self, 2 * node + 1, lo, mid), self(self, 2 * node + 2, mid, hi));
  };
  if (!rows_.empty()) build(build, 0, 0, rows_.size());
}

void IntervalIndex::Visit(std::size_t node, std::size_t lo, std::size_t hi, std::size_t below, TimeNs t,
                          std::vector<std::uint32_t>& out) const {
  if (lo >= below || max_end_[node] <= t) return;
  if (hi - lo == 1) {
    out.push_back(rows_[lo].id);
    return;
  }
  std::size_t mid = lo + (hi - lo) / 2;
  Visit(2 * node + 1, lo, mid, below, t, out);
  Visit(2 * node + 2, mid, hi, below, t, out);
}

std::vector<std::uint32_t> IntervalIndex::Stab(TimeNs t) const {
  std::vector<std::uint32_t> out;
  if (rows_.empty()) return out;
  // Rows [0, below) start at or before t; the tree prunes those that end by t.
  auto below = static_cast<std::size_t>(
      std::upper_bound(rows_.begin(), rows_.end(), t, [](TimeNs x, const Row& r) { return x < r.start_ns; }) -
      rows_.begin());
  Visit(0, 0, rows_.size(), below, t, out);
  std::sort(out.begin(), out.end());
  return out;
}

ColumnReader::ColumnReader(const RankDetail& d)
    : d_(d),
      buckets_(Timeline(d.trace, d.facts, d.verdict.run, kTimelineBucketNs, kTimelineMaxBuckets)),
      tree_(join::BuildLayerTree(d.trace, d.joined, d.facts.kept)) {
  const auto& tr = d.trace;
  const auto& g = tr.gpu;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!d.facts.kept[i]) continue;
    gpu_.Add(g.start_ns[i], g.end_ns[i], static_cast<std::uint32_t>(i));
    by_start_.push_back(static_cast<std::uint32_t>(i));
    ends_.push_back(g.end_ns[i]);
  }
  std::stable_sort(by_start_.begin(), by_start_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return g.start_ns[a] < g.start_ns[b]; });
  std::sort(ends_.begin(), ends_.end());
  for (std::size_t i = 0; i < tr.cpu.size(); ++i)
    cpu_.Add(tr.cpu.start_ns[i], tr.cpu.end_ns[i], static_cast<std::uint32_t>(i));
  for (std::size_t i = 0; i < tr.api.size(); ++i)
    api_.Add(tr.api.start_ns[i], tr.api.end_ns[i], static_cast<std::uint32_t>(i));
  gpu_.Build();
  cpu_.Build();
  api_.Build();
  std::map<std::string_view, std::vector<std::uint32_t>> by_metric;
  for (std::size_t i = 0; i < tr.samples.size(); ++i)
    by_metric[tr.Str(tr.samples.metric[i])].push_back(static_cast<std::uint32_t>(i));
  for (auto& [metric, rows] : by_metric) {
    std::stable_sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
      return tr.samples.ts_ns[a] < tr.samples.ts_ns[b];
    });
    samples_.emplace_back(metric, std::move(rows));
  }
}

Column ColumnReader::Read(TimeNs t) const {
  const RankDetail& d = d_;
  const auto& tr = d.trace;
  const auto& g = tr.gpu;
  Column c;
  c.rank = d.verdict.rank;
  c.t_ns = t;
  c.window_start_ns = d.verdict.run.start_ns;
  c.window_end_ns = d.verdict.run.end_ns;
  auto bucket = std::upper_bound(buckets_.begin(), buckets_.end(), t,
                                 [](TimeNs x, const TimelineBucket& b) { return x < b.end_ns; });
  if (bucket != buckets_.end() && bucket->start_ns <= t) c.bucket = *bucket;
  // Each metric's latest sample at or before t, inside the window (the later row of a tie).
  for (const auto& [metric, rows] : samples_) {
    auto it = std::upper_bound(rows.begin(), rows.end(), t,
                               [&](TimeNs x, std::uint32_t r) { return x < tr.samples.ts_ns[r]; });
    if (it == rows.begin()) continue;
    std::uint32_t r = *std::prev(it);
    if (tr.samples.ts_ns[r] < c.window_start_ns) continue;
    c.counters.push_back({std::string(metric), tr.samples.value[r], tr.samples.ts_ns[r]});
  }

  std::array<int, kActivityClasses> counts{};
  for (std::uint32_t i : gpu_.Stab(t)) {
    ++counts[static_cast<std::size_t>(d.facts.cls[i])];
    c.resident.push_back(ColumnActivityOf(d, tree_, i));
  }
  c.deciding = DecidingClass(counts);
  std::stable_sort(c.resident.begin(), c.resident.end(),
                   [&](const ColumnActivity& a, const ColumnActivity& b) {
                     bool ad = a.cls == c.deciding, bd = b.cls == c.deciding;
                     return ad != bd ? ad : a.start_ns < b.start_ns;
                   });
  if (!c.deciding) {
    c.loss = Loss::kHostBoundIdle;
  } else if (*c.deciding != ActivityClass::kCompute) {
    c.loss = LossOfSlice(*c.deciding);
  } else {
    c.loss = c.resident.front().loss;
  }
  c.step = StepAt(d.verdict, t);

  for (std::uint32_t i : cpu_.Stab(t)) {
    c.host.push_back({std::string(tr.Str(tr.cpu.name[i])), std::string(HostKind(tr.cpu.kind[i])),
                      tr.cpu.tid[i], tr.cpu.start_ns[i], tr.cpu.end_ns[i]});
  }
  for (std::uint32_t i : api_.Stab(t)) {
    c.host.push_back(
        {std::string(tr.Str(tr.api.name[i])), "api", tr.api.tid[i], tr.api.start_ns[i], tr.api.end_ns[i]});
  }
  std::stable_sort(c.host.begin(), c.host.end(),
                   [](const HostRange& a, const HostRange& b) { return a.start_ns > b.start_ns; });

  if (c.resident.empty()) {
    c.idle_cause = d.verdict.evidence.host_idle.CauseAt(t);
    // The gap: from the latest end at or before t to the first start after it (the lowest row of a tie).
    c.gap_start_ns = c.window_start_ns;
    c.gap_end_ns = c.window_end_ns;
    auto prev = std::upper_bound(ends_.begin(), ends_.end(), t);
    if (prev != ends_.begin()) c.gap_start_ns = std::max(c.gap_start_ns, *std::prev(prev));
    auto next = std::upper_bound(by_start_.begin(), by_start_.end(), t,
                                 [&](TimeNs x, std::uint32_t r) { return x < g.start_ns[r]; });
    if (next != by_start_.end()) {
      c.gap_end_ns = g.start_ns[*next];
      c.next = ColumnActivityOf(d, tree_, *next);
    }
  }
  return c;
}

Column ReadColumn(const RankDetail& d, TimeNs t) { return ColumnReader(d).Read(t); }

}  // namespace plasmient::verdict
