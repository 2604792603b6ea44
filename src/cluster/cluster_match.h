// Matching for the cluster layer (cluster.h): which instances on which ranks are one collective.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cluster/cluster.h"

namespace plasmient::cluster {

struct MatchMember {
  std::int32_t rank_index = -1;  // into the ranks given to MatchCollectives
  std::int32_t item = -1;        // into that rank's items
};

// One collective (or one send/recv pair) as seen by the ranks that took part.
struct Match {
  std::string group;
  CollectiveKind kind = CollectiveKind::kOther;
  std::int64_t seq = -1, ordinal = 0;
  bool p2p = false;
  std::int64_t sender = -1, receiver = -1;  // ranks of a send/recv pair (-1: direction unknown)
  std::int64_t expected = 0;                // ranks of its group present in the input
  std::vector<MatchMember> members;         // by rank_index

  bool complete() const { return expected >= 2 && static_cast<std::int64_t>(members.size()) == expected; }
};

struct MatchSet {
  std::vector<Match> matches;
  std::int64_t unmatched = 0;     // matches missing on some ranks of their group, and repeats
  std::int64_t unpaired_p2p = 0;  // send/recv whose peer cannot be told
  std::vector<std::string> problems;
};

// The median of v (the mean of the two middle values when their number is even); 0 when empty.
template <typename T>
double Median(std::vector<T> v) {
  if (v.empty()) return 0;
  std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double upper = static_cast<double>(v[mid]);
  if (v.size() % 2 == 1) return upper;
  double lower = static_cast<double>(*std::max_element(v.begin(), v.begin() + mid));
  return (lower + upper) / 2;
}

// Members of "[0, 1, 2, 3]" (any separators); empty when the text holds no number.
std::vector<std::int64_t> ParseGroupRanks(std::string_view text);

// `ranks` sorted by rank, without duplicates. Groups whose definition conflicts across ranks
// (sizes, member lists, a rank outside its own group) are reported in problems and not matched.
MatchSet MatchCollectives(std::span<const RankCollectives* const> ranks);

// A rank's collectives against the lowest member's in the matches they share (set by
// MatchCollectives over `ranks`): the same collective of one job moves the same bytes on every
// rank, all-to-all aside (its sizes vary per rank). By rank index.
struct SignatureCheck {
  std::int64_t compared = 0, differ = 0;
  std::string example;  // the first disagreement, for a problem line

  // Most of its matched collectives move other sizes than its peers': not the same collectives.
  bool foreign() const { return compared > 0 && 2 * differ > compared; }
};
std::vector<SignatureCheck> CheckSignatures(std::span<const RankCollectives* const> ranks,
                                            const MatchSet& set);

}  // namespace plasmient::cluster
