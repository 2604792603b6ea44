#include "cluster/arrivals.h"

#include <algorithm>
#include <cmath>

#include "cluster/cluster_match.h"

namespace plasmient::cluster {

std::vector<CollectiveArrivals> RankArrivals(const verdict::JobVerdict& job, std::int64_t rank) {
  // The same ranks ReadCluster matched: those with GPU activity, lowest first, once each.
  std::vector<RankCollectives> input;
  std::vector<TimeNs> offset;
  std::vector<bool> aligned;
  for (const auto& r : job.ranks) {
    if (!r.no_gpu_reason.empty()) continue;
    input.push_back({r.rank, r.collectives, r.run.start_ns, r.run.end_ns});
    offset.push_back(SecondsToNearestNs(r.clock_offset_s));
    aligned.push_back(r.clock_aligned);
  }
  std::vector<std::size_t> order(input.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return input[a].rank < input[b].rank; });
  std::vector<const RankCollectives*> ranks;
  std::vector<std::size_t> source;  // rank index → input index
  for (std::size_t i : order) {
    if (!ranks.empty() && ranks.back()->rank == input[i].rank) continue;
    ranks.push_back(&input[i]);
    source.push_back(i);
  }
  auto self = std::find_if(ranks.begin(), ranks.end(), [&](const auto* r) { return r->rank == rank; });
  if (self == ranks.end()) return {};
  const auto self_index = static_cast<std::int32_t>(self - ranks.begin());
  const RankCollectives& mine = **self;

  std::vector<CollectiveArrivals> out(mine.items.size());
  for (std::size_t k = 0; k < mine.items.size(); ++k) {
    const auto& it = mine.items[k];
    auto& c = out[k];
    c.group = it.group;
    c.kind = it.kind;
    c.kind_text = it.name.empty() ? it.kernel : it.name;
    c.seq = it.seq;
    c.step = it.step;
    c.bytes = it.bytes;
    c.group_size = it.group_size;
    c.p2p = it.p2p;
    c.start_ns = it.start_ns;
    c.end_ns = it.end_ns;
    c.clock_offset_ns = offset[source[self_index]];
  }
  if (ranks.size() < 2) return out;
  MatchSet set = MatchCollectives(ranks);
  for (const auto& m : set.matches) {
    auto me = std::find_if(m.members.begin(), m.members.end(),
                           [&](const MatchMember& mm) { return mm.rank_index == self_index; });
    if (me == m.members.end() || !m.complete()) continue;
    bool all_aligned = std::all_of(m.members.begin(), m.members.end(),
                                   [&](const MatchMember& mm) { return aligned[source[mm.rank_index]]; });
    if (!all_aligned) continue;
    auto& c = out[static_cast<std::size_t>(me->item)];
    c.matched = true;
    for (const auto& mm : m.members) {
      const auto& it = ranks[mm.rank_index]->items[mm.item];
      c.arrivals.push_back({ranks[mm.rank_index]->rank, it.start_ns - offset[source[mm.rank_index]]});
    }
    std::stable_sort(c.arrivals.begin(), c.arrivals.end(),
                     [](const PeerArrival& a, const PeerArrival& b) { return a.arrival_ns < b.arrival_ns; });
    c.last_rank = c.arrivals.back().rank;
    std::vector<TimeNs> others;
    for (std::size_t i = 0; i + 1 < c.arrivals.size(); ++i) others.push_back(c.arrivals[i].arrival_ns);
    c.late_ns = c.arrivals.back().arrival_ns - static_cast<TimeNs>(std::llround(Median(std::move(others))));
  }
  std::vector<std::size_t> by_start(out.size());
  for (std::size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](auto a, auto b) { return out[a].start_ns < out[b].start_ns; });
  std::vector<CollectiveArrivals> sorted;
  sorted.reserve(out.size());
  for (std::size_t i : by_start) sorted.push_back(std::move(out[i]));
  return sorted;
}

std::optional<CollectiveArrivals> CollectiveAt(const std::vector<CollectiveArrivals>& arrivals, TimeNs t) {
  const CollectiveArrivals* found = nullptr;
  for (const auto& a : arrivals) {
    if (a.start_ns > t || a.end_ns <= t) continue;
    if (found == nullptr || (a.matched && !found->matched)) found = &a;
  }
  if (found == nullptr) return std::nullopt;
  return *found;
}

InFlight InFlightAt(const CollectiveArrivals& c, std::int64_t rank, TimeNs t) {
  InFlight f;
  const TimeNs t_ref = t - c.clock_offset_ns;
  TimeNs own = c.start_ns - c.clock_offset_ns;
  for (const auto& a : c.arrivals) {
    (a.arrival_ns <= t_ref ? f.arrived : f.waiting_for).push_back(a.rank);
    if (a.rank == rank) own = a.arrival_ns;
  }
  f.waiting = !f.waiting_for.empty();
  f.waited_ns = t_ref - own;
  return f;
}

}  // namespace plasmient::cluster
