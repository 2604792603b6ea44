#include "cluster/cluster.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cluster/cluster_match.h"
#include "cluster/cluster_pipeline.h"

namespace plasmient::cluster {
namespace {

using model::Dq;

// Lowest rank first; a rank given twice is reported and its later inputs dropped.
std::vector<const RankCollectives*> UniqueRanks(std::span<const RankCollectives> ranks, ClusterResult& out) {
  std::vector<const RankCollectives*> sorted;
  for (const auto& r : ranks) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
  std::vector<const RankCollectives*> unique;
  for (const auto* r : sorted) {
    if (!unique.empty() && unique.back()->rank == r->rank) {
      out.quality.Add(Dq::kDuplicateRank);
      out.problems.push_back(fmt::format("rank {} given more than once: later inputs ignored", r->rank));
      continue;
    }
    unique.push_back(r);
  }
  return unique;
}

// Each rank's offset from the reference (index 0): the median, over matched collectives it shares
// with already aligned ranks, of its exit minus those ranks' median exit on the reference clock.
// Ranks that share nothing with the reference are reached through chains of such medians.
void AlignClocks(std::span<const RankCollectives* const> ranks, const MatchSet& set,
                 std::vector<std::optional<TimeNs>>& offset, std::vector<std::int64_t>& matches) {
  offset.assign(ranks.size(), std::nullopt);
  matches.assign(ranks.size(), 0);
  if (ranks.empty()) return;
  offset[0] = 0;
  for (const auto& m : set.matches) {
    if (m.members.size() >= 2 && m.members.front().rank_index == 0) ++matches[0];
  }
  bool changed = true;
  std::vector<std::vector<TimeNs>> diffs(ranks.size());
  while (changed) {
    changed = false;
    for (auto& d : diffs) d.clear();
    std::vector<TimeNs> anchors;
    for (const auto& m : set.matches) {
      anchors.clear();
      bool missing = false;
      for (const auto& mm : m.members) {
        TimeNs end = ranks[mm.rank_index]->items[mm.item].end_ns;
        if (auto o = offset[mm.rank_index]) {
          anchors.push_back(end - *o);
        } else {
          missing = true;
        }
      }
      if (anchors.empty() || !missing) continue;
      auto exit_ns = static_cast<TimeNs>(Median(anchors));
      for (const auto& mm : m.members) {
        if (offset[mm.rank_index]) continue;
        diffs[mm.rank_index].push_back(ranks[mm.rank_index]->items[mm.item].end_ns - exit_ns);
      }
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (diffs[r].empty()) continue;
      matches[r] = static_cast<std::int64_t>(diffs[r].size());
      offset[r] = static_cast<TimeNs>(Median(diffs[r]));
      changed = true;
    }
  }
}

struct WaitTally {
  explicit WaitTally(std::size_t n)
      : caused_s(n),
        late(n),
        collectives(n),
        late_by_s(n),
        late_kinds(n),
        steps(n),
        late_start_s(n),
        slow_work_s(n),
        start_held(n),
        work_held(n),
        start_steps(n),
        work_steps(n) {}
  std::vector<double> caused_s;                             // by rank index
  std::map<std::int64_t, std::vector<double>> step_caused;  // step → caused by rank index
  std::vector<std::int64_t> late, collectives;
  std::vector<double> late_by_s;  // Σ arrival − others' median arrival
  std::vector<std::map<CollectiveKind, std::int64_t>> late_kinds;
  std::vector<std::set<std::int64_t>> steps;
  // Its lateness by cause, and where each cause held (the larger part of one late arrival).
  std::vector<double> late_start_s, slow_work_s;
  std::vector<std::int64_t> start_held, work_held;
  std::vector<std::set<std::int64_t>> start_steps, work_steps;
};

// Where rank r's work towards an instance began, on the reference clock: its step's start when
// the trace numbers its steps, else its window's start.
TimeNs WorkStart(const RankCollectives& r, std::int64_t step, TimeNs offset) {
  auto it = std::lower_bound(r.step_starts.begin(), r.step_starts.end(), step,
                             [](const auto& s, std::int64_t n) { return s.first < n; });
  TimeNs start = it != r.step_starts.end() && it->first == step ? it->second : r.window_start_ns;
  return start - offset;
}

// Arrival = kernel start on the reference clock; wait = clip(last arrival − start, 0, duration).
CollectiveFigures Settle(std::span<const RankCollectives* const> ranks, const Match& m,
                         const std::vector<std::optional<TimeNs>>& offset, ClusterResult& out, WaitTally& t) {
  CollectiveFigures f;
  f.group = m.group;
  f.kind = m.kind;
  f.seq = m.seq;
  f.ordinal = m.ordinal;
  f.ranks = static_cast<std::int64_t>(m.members.size());
  std::vector<TimeNs> arrival;
  TimeNs last = std::numeric_limits<TimeNs>::min();
  std::size_t last_i = 0;
  for (std::size_t i = 0; i < m.members.size(); ++i) {
    const auto& mm = m.members[i];
    const auto& it = ranks[mm.rank_index]->items[mm.item];
    arrival.push_back(it.start_ns - *offset[mm.rank_index]);
    if (arrival.back() > last) last = arrival.back(), last_i = i;
    f.bytes = std::max(f.bytes, it.bytes);
    if (f.step < 0) f.step = it.step;
  }
  f.last_rank = ranks[m.members[last_i].rank_index]->rank;
  f.first_arrival_ns = *std::min_element(arrival.begin(), arrival.end());
  f.arrival_spread_s = NsToSeconds(last - f.first_arrival_ns);
  std::vector<TimeNs> transfer;
  double caused = 0;
  for (std::size_t i = 0; i < m.members.size(); ++i) {
    const auto& mm = m.members[i];
    const auto& it = ranks[mm.rank_index]->items[mm.item];
    TimeNs dur = std::max<TimeNs>(0, it.end_ns - it.start_ns);
    TimeNs wait = std::clamp<TimeNs>(last - arrival[i], 0, dur);
    transfer.push_back(dur - wait);
    auto& rf = out.ranks[mm.rank_index];
    if (m.p2p) {
      rf.p2p_wait_s += NsToSeconds(wait);
      rf.p2p_transfer_s += NsToSeconds(dur - wait);
    } else {
      rf.wait_on_peers_s += NsToSeconds(wait);
      rf.transfer_s += NsToSeconds(dur - wait);
      // Where within the kernel its exposed slices fell is not kept: pro rata to wait and transfer.
      const double waiting = dur > 0 ? static_cast<double>(wait) / static_cast<double>(dur) : 0;
      rf.exposed_wait_s += it.exposed_s * waiting;
      rf.exposed_transfer_s += it.exposed_s * (1 - waiting);
      caused += NsToSeconds(wait);
      ++t.collectives[mm.rank_index];
      if (it.step >= 0) t.steps[mm.rank_index].insert(it.step);
    }
  }
  f.transfer_s = NsToSeconds(Median(transfer));
  if (m.p2p || caused <= 0) return f;
  std::int32_t late = m.members[last_i].rank_index;
  t.caused_s[late] += caused;
  ++out.ranks[late].last_arrivals;
  ++t.late[late];
  ++t.late_kinds[late][m.kind];
  // Lateness = its arrival − the others' median; of it, its work start (step start) − the others'
  // median is a late start, the rest its work since then taking longer than theirs.
  std::vector<TimeNs> others, others_start;
  for (std::size_t i = 0; i < arrival.size(); ++i) {
    if (i == last_i) continue;
    others.push_back(arrival[i]);
    const auto& mm = m.members[i];
    others_start.push_back(
        WorkStart(*ranks[mm.rank_index], ranks[mm.rank_index]->items[mm.item].step, *offset[mm.rank_index]));
  }
  const double lateness = NsToSeconds(static_cast<double>(last) - Median(others));
  t.late_by_s[late] += lateness;
  const auto& lm = m.members[last_i];
  const TimeNs own_start = WorkStart(*ranks[late], ranks[late]->items[lm.item].step, *offset[late]);
  const double started_late = std::clamp(NsToSeconds(static_cast<double>(own_start) - Median(others_start)),
                                         0.0, std::max(0.0, lateness));
  t.late_start_s[late] += started_late;
  t.slow_work_s[late] += std::max(0.0, lateness) - started_late;
  const bool start_held = 2 * started_late >= lateness;
  ++(start_held ? t.start_held : t.work_held)[late];
  auto& held_steps = start_held ? t.start_steps[late] : t.work_steps[late];
  held_steps.insert(f.step >= 0 ? f.step : -1 - static_cast<std::int64_t>(held_steps.size()));
  if (f.step >= 0) {
    auto& v = t.step_caused[f.step];
    v.resize(ranks.size());
    v[late] += caused;
  }
  return f;
}

void Bandwidth(CollectiveFigures& f, bool p2p, const ClusterOptions& o) {
  if (f.bytes <= 0 || f.transfer_s <= 0) return;
  double factor = p2p ? 1.0 : BusBandwidthFactor(f.kind, f.ranks);
  double bytes = p2p ? static_cast<double>(f.bytes) : AlgorithmBytes(f.kind, f.bytes, f.ranks);
  f.algorithm_bytes_per_s = bytes / f.transfer_s;
  f.bus_bytes_per_s = f.algorithm_bytes_per_s * factor;
  if (o.link_bytes_per_s > 0) {
    f.link_fraction = f.bus_bytes_per_s / o.link_bytes_per_s;
    f.excess_s = std::max(0.0, f.transfer_s - bytes * factor / o.link_bytes_per_s);
  }
}

void FindStragglers(std::span<const RankCollectives* const> ranks, const WaitTally& t,
                    const ClusterOptions& o, ClusterResult& out) {
  if (out.capacity_s <= 0) return;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    double caused = t.caused_s[r];
    double fraction = caused / out.capacity_s;
    if (caused <= 0 || fraction < o.straggler_min_fraction) continue;
    std::vector<double> others = t.caused_s;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(r));
    if (caused < o.straggler_median_factor * Median(std::move(others))) continue;
    Straggler s;
    s.rank = ranks[r]->rank;
    s.caused_wait_s = caused;
    s.capacity_fraction = fraction;
    s.late_collectives = t.late[r];
    s.collectives = t.collectives[r];
    s.steps = static_cast<std::int64_t>(t.steps[r].size());
    s.mean_late_s = t.late[r] > 0 ? t.late_by_s[r] / static_cast<double>(t.late[r]) : 0;
    auto top = std::max_element(t.late_kinds[r].begin(), t.late_kinds[r].end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    if (top != t.late_kinds[r].end()) s.kind = top->first;
    s.late_start_s = t.late_start_s[r];
    s.slow_work_s = t.slow_work_s[r];
    const bool start = s.late_start_s > s.slow_work_s;
    s.cause = start ? "late_start" : "slow_work";
    const auto held = static_cast<double>(start ? t.start_held[r] : t.work_held[r]);
    s.cause_steps = static_cast<std::int64_t>((start ? t.start_steps[r] : t.work_steps[r]).size());
    const auto n = static_cast<double>(s.cause_steps);
    s.confidence = t.late[r] > 0 ? held / static_cast<double>(t.late[r]) * n / (n + 1) : 0;
    for (const auto& [step, by_rank] : t.step_caused) {
      auto worst = std::max_element(by_rank.begin(), by_rank.end());
      if (*worst > 0 && static_cast<std::size_t>(worst - by_rank.begin()) == r) s.late_steps.push_back(step);
    }
    out.stragglers.push_back(std::move(s));
  }
  std::sort(out.stragglers.begin(), out.stragglers.end(),
            [](const Straggler& a, const Straggler& b) { return a.caused_wait_s > b.caused_wait_s; });
}

// Offsets are never a criterion: hosts without clock sync are seconds or hours apart, and the
// matched collectives (by group, kind and sequence, never by time) align them however far. A rank
// whose matched collectives mostly move other sizes than its peers' is not the same job's.
void ReportAlignment(std::span<const RankCollectives* const> ranks, const MatchSet& set,
                     std::vector<std::optional<TimeNs>>& offset, const std::vector<std::int64_t>& matches,
                     const ClusterOptions& o, ClusterResult& out) {
  std::vector<std::int64_t> unreached;
  const auto signatures = CheckSignatures(ranks, set);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    auto& rf = out.ranks[r];
    const auto& sig = signatures[r];
    const bool foreign = offset[r] && sig.foreign();
    if (foreign) {
      out.problems.push_back(
          fmt::format("rank {}'s collectives differ from rank {}'s in {} of {} matched ({}): not the same "
                      "collectives (not one job?)",
                      rf.rank, out.reference_rank, sig.differ, sig.compared, sig.example));
      offset[r].reset();
    }
    rf.clock_aligned = offset[r].has_value();
    rf.clock_offset_ns = offset[r].value_or(0);
    rf.alignment_matches = matches[r];
    if (!rf.clock_aligned && !foreign) unreached.push_back(rf.rank);
    if (matches[r] < o.min_alignment_matches) out.quality.Add(Dq::kClockAlignmentWeak);
  }
  if (!unreached.empty()) {
    out.problems.push_back(
        fmt::format("ranks {} share no matched collective with rank {}: their clocks "
                    "cannot be aligned (not one job?)",
                    unreached, out.reference_rank));
  }
}

}  // namespace

ClusterResult AnalyzeCluster(std::span<const RankCollectives> input, const ClusterOptions& options) {
  ClusterResult out;
  auto ranks = UniqueRanks(input, out);
  if (ranks.empty()) return out;
  out.reference_rank = ranks.front()->rank;
  for (const auto* r : ranks) {
    out.ranks.push_back({.rank = r->rank});
    out.capacity_s += NsToSeconds(std::max<TimeNs>(0, r->window_end_ns - r->window_start_ns));
  }
  MatchSet set = MatchCollectives(ranks);
  out.problems.insert(out.problems.end(), set.problems.begin(), set.problems.end());
  out.unmatched = set.unmatched;
  out.unpaired_p2p = set.unpaired_p2p;
  out.quality.Add(Dq::kCollectiveUnmatched, set.unmatched + set.unpaired_p2p);

  std::vector<std::optional<TimeNs>> offset;
  std::vector<std::int64_t> matches;
  AlignClocks(ranks, set, offset, matches);
  ReportAlignment(ranks, set, offset, matches, options, out);

  WaitTally t(ranks.size());
  std::vector<CollectiveFigures> figures;
  for (const auto& m : set.matches) {
    if (!m.complete()) continue;
    bool aligned = std::all_of(m.members.begin(), m.members.end(),
                               [&](const MatchMember& mm) { return offset[mm.rank_index].has_value(); });
    if (!aligned) continue;
    ++out.matched;
    figures.push_back(Settle(ranks, m, offset, out, t));
    Bandwidth(figures.back(), m.p2p, options);
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) out.ranks[r].caused_wait_s = t.caused_s[r];
  FindStragglers(ranks, t, options, out);

  auto costlier = [&](const CollectiveFigures& a, const CollectiveFigures& b) {
    return options.link_bytes_per_s > 0 ? a.excess_s > b.excess_s : a.transfer_s > b.transfer_s;
  };
  std::size_t n = std::min(options.worst_n, figures.size());
  std::partial_sort(figures.begin(), figures.begin() + static_cast<std::ptrdiff_t>(n), figures.end(),
                    costlier);
  figures.resize(n);
  out.worst_collectives = std::move(figures);
  out.pipeline = InferPipelines(ranks, set, offset);
  return out;
}

}  // namespace plasmient::cluster
