#include "cluster/cluster_match.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace plasmient::cluster {
namespace {

struct GroupInfo {
  std::set<std::int64_t> reporters;  // input ranks with an instance of the group
  std::vector<std::int64_t> listed;  // members from group_ranks text, when given
  std::string listed_text;
  std::int64_t listed_by = -1;
  std::set<std::int32_t> sizes;                             // group_size values reported
  std::set<std::int64_t> members;                           // the group's ranks present in the input
  std::map<std::int64_t, std::int64_t> rank_of_group_rank;  // communicator rank -> job rank
  bool conflict = false;
};

void Problem(MatchSet& out, GroupInfo& g, std::string text) {
  g.conflict = true;
  out.problems.push_back(std::move(text));
}

std::map<std::string, GroupInfo> DescribeGroups(std::span<const RankCollectives* const> ranks,
                                                MatchSet& out) {
  std::map<std::string, GroupInfo> groups;
  std::set<std::int64_t> input;
  for (const auto* r : ranks) input.insert(r->rank);
  for (const auto* r : ranks) {
    for (const auto& it : r->items) {
      auto& g = groups[it.group];
      if (g.conflict) continue;
      g.reporters.insert(r->rank);
      if (it.group_size > 0) g.sizes.insert(it.group_size);
      if (it.group_rank >= 0) {
        auto [at, fresh] = g.rank_of_group_rank.try_emplace(it.group_rank, r->rank);
        if (!fresh && at->second != r->rank) {
          Problem(out, g,
                  fmt::format("group '{}' has rank {} on ranks {} and {}", it.group, it.group_rank,
                              at->second, r->rank));
          continue;
        }
      }
      // Texts of a 1,024-rank group are long: parse one only when it differs from the last seen.
      if (it.group_ranks.empty() || it.group_ranks == g.listed_text) continue;
      auto listed = ParseGroupRanks(it.group_ranks);
      if (listed.empty()) continue;
      std::sort(listed.begin(), listed.end());
      if (g.listed.empty()) {
        g.listed_text = it.group_ranks;
        g.listed = std::move(listed);
        g.listed_by = r->rank;
      } else if (listed != g.listed) {
        Problem(out, g,
                fmt::format("group '{}' has members {} on rank {} but {} on rank {}", it.group, g.listed,
                            g.listed_by, listed, r->rank));
      }
    }
  }
  for (auto& [name, g] : groups) {
    if (g.conflict) continue;
    if (g.sizes.size() > 1) {
      Problem(out, g, fmt::format("group '{}' has sizes {} on different ranks", name, g.sizes));
      continue;
    }
    if (!g.listed.empty()) {
      for (std::int64_t r : g.reporters) {
        if (!std::binary_search(g.listed.begin(), g.listed.end(), r)) {
          Problem(out, g,
                  fmt::format("rank {} reports group '{}' whose members {} exclude it", r, name, g.listed));
          break;
        }
      }
      if (g.conflict) continue;
      if (!g.sizes.empty() && *g.sizes.begin() != static_cast<std::int64_t>(g.listed.size())) {
        Problem(out, g,
                fmt::format("group '{}' has size {} but members {}", name, *g.sizes.begin(), g.listed));
        continue;
      }
      for (std::int64_t m : g.listed) {
        if (input.contains(m)) g.members.insert(m);
      }
    } else {
      g.members = g.reporters;
      if (!g.sizes.empty() && static_cast<std::int64_t>(g.reporters.size()) > *g.sizes.begin()) {
        Problem(out, g,
                fmt::format("group '{}' has size {} but {} ranks report it", name, *g.sizes.begin(),
                            g.reporters.size()));
      }
    }
  }
  return groups;
}

// (group, kind or -1 with seq, number, sender, receiver)
using MatchKey = std::tuple<std::string, int, std::int64_t, std::int64_t, std::int64_t>;
constexpr int kBySeq = -1;
constexpr int kP2pChannel = 100;
constexpr std::int64_t kPeerNotInInput = -2;  // a peer named by its group rank that no input rank holds

}  // namespace

std::vector<std::int64_t> ParseGroupRanks(std::string_view text) {
  std::vector<std::int64_t> out;
  std::int64_t value = 0;
  bool in_number = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      value = value * 10 + (c - '0');
      in_number = true;
    } else if (in_number) {
      out.push_back(value);
      value = 0;
      in_number = false;
    }
  }
  if (in_number) out.push_back(value);
  return out;
}

MatchSet MatchCollectives(std::span<const RankCollectives* const> ranks) {
  MatchSet out;
  auto groups = DescribeGroups(ranks, out);
  std::map<MatchKey, std::size_t> index;
  for (std::size_t ri = 0; ri < ranks.size(); ++ri) {
    const auto& rc = *ranks[ri];
    std::map<std::tuple<std::string, int, std::int64_t, std::int64_t>, std::int64_t> ordinals;
    for (std::size_t i = 0; i < rc.items.size(); ++i) {
      const auto& it = rc.items[i];
      const auto& g = groups[it.group];
      if (g.conflict) continue;
      const CollectiveKind kind = it.kind;
      MatchKey key;
      std::int64_t sender = -1, receiver = -1, expected = static_cast<std::int64_t>(g.members.size());
      if (it.p2p) {
        std::int64_t peer = it.peer;
        if (peer >= 0 && it.group_rank >= 0) {  // a rank within the group: the job rank holding it
          auto at = g.rank_of_group_rank.find(peer);
          peer = at == g.rank_of_group_rank.end() ? kPeerNotInInput : at->second;
        }
        if (peer == -1 && g.members.size() == 2)
          peer = *g.members.begin() == rc.rank ? *g.members.rbegin() : *g.members.begin();
        if (peer < 0 || peer == rc.rank) {
          ++out.unpaired_p2p;
          continue;
        }
        if (kind == CollectiveKind::kSend) {
          sender = rc.rank, receiver = peer;
        } else if (kind == CollectiveKind::kRecv) {
          sender = peer, receiver = rc.rank;
        }
        std::int64_t lo = sender >= 0 ? sender : std::min(rc.rank, peer);
        std::int64_t hi = sender >= 0 ? receiver : std::max(rc.rank, peer);
        bool directed = sender >= 0;
        std::int64_t n = ordinals[{it.group, kP2pChannel + directed, lo, hi}]++;
        key = {it.group, kP2pChannel + directed, n, lo, hi};
        expected = 2;
      } else if (it.seq >= 0) {
        // NCCL's seqNumber counts per collective type, so (group, type, seq) names a collective.
        // One collective may run as several kernels: the k-th with a seq meets the k-th elsewhere.
        std::int64_t k = ordinals[{it.group, kBySeq, it.seq, static_cast<int>(kind)}]++;
        key = {it.group, kBySeq, it.seq, k, static_cast<int>(kind)};
      } else {
        std::int64_t n = ordinals[{it.group, static_cast<int>(kind), -1, -1}]++;
        key = {it.group, static_cast<int>(kind), n, -1, -1};
      }
      auto [pos, fresh] = index.try_emplace(key, out.matches.size());
      if (fresh) {
        Match m;
        m.group = it.group;
        m.kind = kind;
        m.p2p = it.p2p;
        m.seq = it.p2p ? -1 : it.seq;
        m.ordinal = std::get<2>(key);
        m.sender = sender;
        m.receiver = receiver;
        m.expected = expected;
        out.matches.push_back(std::move(m));
      }
      auto& m = out.matches[pos->second];
      if (!m.members.empty() && m.members.back().rank_index == static_cast<std::int32_t>(ri)) {
        ++out.unmatched;  // the same (group, kind, seq) twice on one rank: the first is kept
        continue;
      }
      m.members.push_back({static_cast<std::int32_t>(ri), static_cast<std::int32_t>(i)});
    }
  }
  for (const auto& m : out.matches) {
    if (!m.complete()) ++out.unmatched;
  }
  return out;
}

std::vector<SignatureCheck> CheckSignatures(std::span<const RankCollectives* const> ranks,
                                            const MatchSet& set) {
  std::vector<SignatureCheck> out(ranks.size());
  for (const auto& m : set.matches) {
    if (m.p2p || m.kind == CollectiveKind::kAllToAll || m.members.size() < 2) continue;
    const auto& first = m.members.front();
    const std::int64_t ref_bytes = ranks[first.rank_index]->items[first.item].bytes;
    if (ref_bytes <= 0) continue;
    for (std::size_t i = 1; i < m.members.size(); ++i) {
      const auto& mm = m.members[i];
      const auto& it = ranks[mm.rank_index]->items[mm.item];
      const std::int64_t bytes = it.bytes;
      // Members in other steps are other steps' collectives: a rank that profiled other steps.
      const std::int64_t ref_step = ranks[first.rank_index]->items[first.item].step;
      if (bytes <= 0 || (it.step >= 0 && ref_step >= 0 && it.step != ref_step)) continue;
      auto& c = out[mm.rank_index];
      ++c.compared;
      if (bytes == ref_bytes) continue;
      if (c.differ++ == 0) {
        c.example = fmt::format("{} {} of group '{}' is {} B on rank {} but {} B on rank {}",
                                CollectiveKindName(m.kind), m.seq >= 0 ? m.seq : m.ordinal, m.group, bytes,
                                ranks[mm.rank_index]->rank, ref_bytes, ranks[first.rank_index]->rank);
      }
    }
  }
  return out;
}

}  // namespace plasmient::cluster
