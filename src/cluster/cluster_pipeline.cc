#include "cluster/cluster_pipeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace plasmient::cluster {
namespace {

std::int32_t Root(std::vector<std::int32_t>& parent, std::int32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

bool FirstP2pIsSend(const RankCollectives& r) {
  for (const auto& it : r.items) {
    if (it.p2p) return it.kind == CollectiveKind::kSend;
  }
  return false;
}

// Stage order of one chain: walk a simple path from its first stage, else rank order.
std::vector<std::int32_t> StageOrder(std::span<const RankCollectives* const> ranks,
                                     std::vector<std::int32_t> nodes,
                                     const std::map<std::int32_t, std::set<std::int32_t>>& adjacent) {
  std::size_t degree_sum = 0;
  std::vector<std::int32_t> ends;
  for (auto n : nodes) {
    std::size_t d = adjacent.at(n).size();
    degree_sum += d;
    if (d == 1) ends.push_back(n);
    if (d > 2) return nodes;
  }
  if (ends.size() != 2 || degree_sum != 2 * (nodes.size() - 1)) return nodes;
  std::int32_t first = ends[0];
  if (!FirstP2pIsSend(*ranks[ends[0]]) && FirstP2pIsSend(*ranks[ends[1]])) first = ends[1];
  std::vector<std::int32_t> order{first};
  std::int32_t prev = -1;
  while (order.size() < nodes.size()) {
    for (auto next : adjacent.at(order.back())) {
      if (next != prev) {
        prev = order.back();
        order.push_back(next);
        break;
      }
    }
  }
  return order;
}

}  // namespace

std::vector<PipelineStage> InferPipelines(std::span<const RankCollectives* const> ranks, const MatchSet& set,
                                          const std::vector<std::optional<TimeNs>>& offset) {
  std::vector<std::int32_t> parent(ranks.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::map<std::int32_t, std::set<std::int32_t>> adjacent;
  std::vector<const Match*> pairs;
  for (const auto& m : set.matches) {
    // SendRecv kernels with no direction are as often all-to-all pieces as pipeline hops.
    if (!m.p2p || !m.complete() || m.sender < 0) continue;
    std::int32_t a = m.members[0].rank_index, b = m.members[1].rank_index;
    adjacent[a].insert(b);
    adjacent[b].insert(a);
    parent[Root(parent, a)] = Root(parent, b);
    pairs.push_back(&m);
  }
  std::map<std::int32_t, std::vector<std::int32_t>> chains;  // by root; nodes ascending
  for (const auto& [node, _] : adjacent) chains[Root(parent, node)].push_back(node);
  std::vector<std::vector<std::int32_t>> orders;
  orders.reserve(chains.size());
  for (auto& [_, nodes] : chains) orders.push_back(StageOrder(ranks, nodes, adjacent));
  std::sort(orders.begin(), orders.end(), [](const auto& a, const auto& b) {
    return *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
  });
  std::vector<std::int64_t> stage(ranks.size(), -1), chain(ranks.size(), -1);
  for (std::size_t c = 0; c < orders.size(); ++c) {
    for (std::size_t s = 0; s < orders[c].size(); ++s) {
      stage[orders[c][s]] = static_cast<std::int64_t>(s);
      chain[orders[c][s]] = static_cast<std::int64_t>(c);
    }
  }
  // Forward pairs per (chain, sender, step).
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> per_link_step;
  for (const Match* m : pairs) {
    if (m->sender < 0) continue;
    const MatchMember& send =
        ranks[m->members[0].rank_index]->rank == m->sender ? m->members[0] : m->members[1];
    const MatchMember& recv = &send == &m->members[0] ? m->members[1] : m->members[0];
    if (stage[send.rank_index] >= stage[recv.rank_index]) continue;
    std::int64_t step = ranks[send.rank_index]->items[send.item].step;
    if (step < 0) continue;
    ++per_link_step[{chain[send.rank_index], send.rank_index, step}];
  }
  std::vector<std::vector<std::int64_t>> counts(orders.size());
  for (const auto& [key, n] : per_link_step) counts[std::get<0>(key)].push_back(n);
  std::vector<PipelineStage> out;
  for (std::size_t c = 0; c < orders.size(); ++c) {
    std::int64_t microbatches = 0;
    if (!counts[c].empty()) {
      auto& v = counts[c];
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      microbatches = v[v.size() / 2];
    }
    auto stages = static_cast<std::int64_t>(orders[c].size());
    for (std::size_t s = 0; s < orders[c].size(); ++s) {
      PipelineStage p;
      p.rank = ranks[orders[c][s]]->rank;
      p.pipeline = static_cast<std::int64_t>(c);
      p.stage = static_cast<std::int64_t>(s);
      p.stages = stages;
      p.microbatches = microbatches;
      if (microbatches > 0) {
        p.ideal_bubble = static_cast<double>(stages - 1) / static_cast<double>(microbatches + stages - 1);
      }
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace plasmient::cluster
