#include "cluster/job_identity.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <simdjson.h>

#include "cluster/cluster_match.h"
#include "verdict/job_inputs.h"

namespace plasmient::cluster {
namespace {

using verdict::RankVerdict;

std::string FileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// "backend nccl in a.json but gloo in b.json": the first two inputs that say different things.
void Backend(const std::vector<RankVerdict>& ranks, std::vector<std::string>& why) {
  const RankVerdict* first = nullptr;
  for (const auto& r : ranks) {
    if (r.backend.empty()) continue;
    if (first == nullptr) {
      first = &r;
    } else if (r.backend != first->backend) {
      why.push_back(fmt::format("backend {} in {} but {} in {}", first->backend, FileName(first->path),
                                r.backend, FileName(r.path)));
      return;
    }
  }
}

// A process group of one job has one size on every rank that declares it (pg_config) or runs a
// collective on it (its instances' group size).
void ProcessGroups(const std::vector<RankVerdict>& ranks, std::vector<std::string>& why) {
  std::map<std::string, std::pair<std::int64_t, const RankVerdict*>> seen;
  auto check = [&](const std::string& name, std::int64_t size, const RankVerdict& r) {
    if (size <= 0) return true;
    auto [it, fresh] = seen.try_emplace(name, size, &r);
    if (fresh || it->second.first == size) return true;
    why.push_back(fmt::format("process group '{}' has {} ranks in {} but {} in {}", name, it->second.first,
                              FileName(it->second.second->path), size, FileName(r.path)));
    return false;
  };
  for (const auto& r : ranks) {
    for (const auto& [name, size] : ProcessGroupSizes(r.pg_config)) {
      if (!check(name, size, r)) return;
    }
    for (const auto& c : r.collectives) {
      if (!c.group.empty() && !check(c.group, c.group_size, r)) return;
    }
  }
}

// The kinds each rank runs on each group, over the steps two ranks both hold (all of them when
// either has no step numbers): one job's ranks of a group run the same collectives.
std::set<std::pair<std::string, join::CollectiveKind>> KindsOn(const RankVerdict& r,
                                                               const std::set<std::int64_t>& steps) {
  std::set<std::pair<std::string, join::CollectiveKind>> kinds;
  for (const auto& c : r.collectives) {
    if (c.p2p || c.group.empty()) continue;
    if (!steps.empty() && !steps.contains(c.step)) continue;
    kinds.emplace(c.group, c.kind);
  }
  return kinds;
}

std::set<std::int64_t> StepsOf(const RankVerdict& r) {
  std::set<std::int64_t> steps;
  for (const auto& c : r.collectives) {
    if (c.step >= 0) steps.insert(c.step);
  }
  return steps;
}

// The collective signature: the kinds each group runs, and the bytes of each matched collective.
void Signature(const std::vector<RankVerdict>& ranks, std::vector<std::string>& why) {
  std::vector<const RankVerdict*> by_rank;
  for (const auto& r : ranks) {
    if (r.rank >= 0 && r.no_gpu_reason.empty() && !r.collectives.empty()) by_rank.push_back(&r);
  }
  std::stable_sort(by_rank.begin(), by_rank.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
  by_rank.erase(
      std::unique(by_rank.begin(), by_rank.end(), [](auto* a, auto* b) { return a->rank == b->rank; }),
      by_rank.end());
  if (by_rank.size() < 2) return;
  const RankVerdict& ref = *by_rank.front();
  const auto ref_steps = StepsOf(ref);
  for (std::size_t i = 1; i < by_rank.size(); ++i) {
    const RankVerdict& r = *by_rank[i];
    std::set<std::int64_t> common;
    const auto steps = StepsOf(r);
    std::set_intersection(ref_steps.begin(), ref_steps.end(), steps.begin(), steps.end(),
                          std::inserter(common, common.end()));
    if (common.empty() && !ref_steps.empty() && !steps.empty()) continue;  // other steps: nothing to compare
    const auto a = KindsOn(ref, common), b = KindsOn(r, common);
    for (const auto& [group, kind] : b) {
      bool group_on_ref = std::any_of(a.begin(), a.end(), [&](const auto& k) { return k.first == group; });
      if (!group_on_ref || a.contains({group, kind})) continue;
      why.push_back(fmt::format("collective signature: group '{}' runs {} in {} but not in {}", group,
                                join::CollectiveKindName(kind), FileName(r.path), FileName(ref.path)));
      return;
    }
  }
  std::vector<RankCollectives> input;
  input.reserve(by_rank.size());
  for (const auto* r : by_rank) input.push_back({r->rank, r->collectives, r->run.start_ns, r->run.end_ns});
  std::vector<const RankCollectives*> pointers;
  pointers.reserve(input.size());
  for (const auto& r : input) pointers.push_back(&r);
  const MatchSet set = MatchCollectives(pointers);
  const auto checks = CheckSignatures(pointers, set);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    if (!checks[i].foreign()) continue;
    why.push_back(fmt::format(
        "collective signature: {} of {} matched collectives of {} move other sizes than {}'s ({})",
        checks[i].differ, checks[i].compared, FileName(by_rank[i]->path), FileName(ref.path),
        checks[i].example));
    return;
  }
}

}  // namespace

std::vector<std::pair<std::string, std::int64_t>> ProcessGroupSizes(const std::string& pg_config) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  if (pg_config.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::dom::array groups;
  if (parser.parse(pg_config).get_array().get(groups) != simdjson::SUCCESS) return out;
  for (auto g : groups) {
    std::string_view name;
    if (g["pg_name"].get_string().get(name) != simdjson::SUCCESS) continue;
    std::int64_t size = -1;
    simdjson::dom::array members;
    if (g["pg_size"].get_int64().get(size) != simdjson::SUCCESS &&
        g["ranks"].get_array().get(members) == simdjson::SUCCESS) {
      size = static_cast<std::int64_t>(members.size());
    }
    out.emplace_back(std::string(name), size);
  }
  return out;
}

std::vector<std::string> NotOneJob(const std::vector<RankVerdict>& ranks) {
  std::vector<std::string> why = verdict::NotOneJob(ranks);
  Backend(ranks, why);
  ProcessGroups(ranks, why);
  if (why.empty()) Signature(ranks, why);  // sizes are compared only between traces that may be one job
  return why;
}

}  // namespace plasmient::cluster
