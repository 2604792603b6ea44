// Roles of exposed communication (docs/verdict.md): each collective kernel's exposed time goes to
// the role its launch context names, or that its placement implies, or to "unknown".
#include "verdict/comm_roles.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "base/result.h"
#include "base/text.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {
namespace {

static_assert(std::tuple_size_v<decltype(CommRoleFigures::by_family_s)> == kCommFamilyCount);

constexpr std::array<std::string_view, kCommRoleCount> kRoleNames = {
    "data_parallel", "tensor_parallel", "embedding", "moe", "pipeline", "optimizer", "unknown"};

// Names kept per role: the fix quotes a few.
constexpr std::size_t kRoleNamesKept = 4;

bool NameHas(std::string_view s, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return s.find(p) != s.npos; });
}

// A whole token of `s` (split at every non-alphanumeric character) equal to one of `tokens`:
// process groups are named "mesh_tp", "dp_replicate", "TENSOR_MODEL_PARALLEL_GROUP", and "tp"
// inside a word says nothing.
bool NameHasToken(std::string_view s, std::initializer_list<std::string_view> tokens) {
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && !std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
    const std::string_view token = s.substr(i, j - i);
    if (!token.empty() && std::find(tokens.begin(), tokens.end(), token) != tokens.end()) return true;
    i = j;
  }
  return false;
}

using CKind = join::CollectiveKind;

bool IsReducing(CKind k) {
  return k == CKind::kAllReduce || k == CKind::kReduceScatter || k == CKind::kReduce;
}
bool IsGatherOrScatter(CKind k) { return k == CKind::kAllGather || k == CKind::kReduceScatter; }
bool IsSendOrRecv(CKind k) { return k == CKind::kSend || k == CKind::kRecv; }

// The role one lower-cased name says for a collective of kind `k`, if any. A name says a role
// only for the kinds that role uses: an all-reduce inside an MoE block is the tensor-parallel
// reduction of the experts' output, not their dispatch.
std::optional<CommRole> RoleNamedBy(std::string_view n, CKind k) {
  if (!IsSendOrRecv(k) &&
      NameHas(
          n, {"sparse_data_dist", "sparsedatadist", "kjt", "embedding_bag", "embeddingbag", "split_embedding",
              "shardedembedding", "sharded_embedding", "embeddingcollection", "embedding_collection",
              "torchrec", "fbgemm", "input_dist", "output_dist", "pooled_embedding", "sequence_embedding",
              "all2all_data", "all2all_pooled", "all2all_sequence"}))
    return CommRole::kEmbedding;
  if ((k == CKind::kAllToAll || IsGatherOrScatter(k)) &&
      (NameHas(n, {"moe", "expert", "token_dispatch", "dispatcher"}) || NameHasToken(n, {"ep"})))
    return CommRole::kMoe;
  if ((IsSendOrRecv(k) || k == CKind::kOther) &&
      (NameHas(n, {"pipelin", "pipeline_parallel"}) || NameHasToken(n, {"pp", "pipe"})))
    return CommRole::kPipeline;
  if ((IsReducing(k) || IsGatherOrScatter(k)) &&
      (NameHas(n, {"tensor_model_parallel", "tensor_parallel", "tensorparallel", "parallellinear",
                   "vocabparallel", "sequence_parallel", "sequenceparallel"}) ||
       NameHasToken(n, {"tp"})))
    return CommRole::kTensorParallel;
  // A collective inside the optimizer's step belongs to a sharded optimizer (ZeRO-1/2, distributed
  // Shampoo, Megatron's distributed optimizer): it gathers the updated parameter shards or reduces
  // the optimizer's state; the optimizer's own ranges ("## optimizer ##", "Optimizer.step#Adam.step")
  // or class names say so.
  if ((IsReducing(k) || IsGatherOrScatter(k) || k == CKind::kBroadcast) &&
      (NameHas(n, {"optimizer", "optim.step", "zeroredundancy", "zero_redundancy", "param_gather"})))
    return CommRole::kOptimizer;
  if ((IsReducing(k) || IsGatherOrScatter(k) || k == CKind::kBroadcast) &&
      (NameHas(n, {"distributeddataparallel", "fullyshardeddataparallel", "fsdp", "reducer", "comm_hook",
                   "allreduce_hook", "data_parallel", "dataparallel"}) ||
       NameHasToken(n, {"dp", "ddp"})))
    return CommRole::kDataParallel;
  return std::nullopt;
}

struct LaunchQuery {
  TimeNs at;
  std::size_t kernel;
};

}  // namespace

std::string_view CommRoleName(CommRole role) {
  const auto i = static_cast<std::size_t>(role);
  PLASMIENT_CHECK(i < kCommRoleCount);
  return kRoleNames[i];
}

CommRole CommRoleFromName(std::string_view name) {
  for (std::size_t i = 0; i < kCommRoleCount; ++i) {
    if (kRoleNames[i] == name) return static_cast<CommRole>(i);
  }
  return CommRole::kUnknown;
}

RoleFound RoleOf(const RoleContext& c) {
  for (const std::string& n : c.names) {
    if (auto role = RoleNamedBy(n, c.kind)) return {*role, RoleEvidence::kNamed, n};
  }
  if (IsSendOrRecv(c.kind)) return {CommRole::kPipeline, RoleEvidence::kPlaced, {}};
  // Gradients are reduced in backward; a layer's forward reduces or gathers its tensor-parallel
  // shards (FSDP's forward gathers are named by its ranges and modules, above).
  if (c.backward && IsReducing(c.kind)) return {CommRole::kDataParallel, RoleEvidence::kPlaced, {}};
  if (c.in_layer && !c.backward && (IsReducing(c.kind) || IsGatherOrScatter(c.kind)))
    return {CommRole::kTensorParallel, RoleEvidence::kPlaced, {}};
  return {};
}

double CommRoles::total_s() const {
  double total = 0;
  for (const auto& r : by_role) total += r.exposed_s;
  return total;
}

namespace {

// A name is quoted whole up to this length (a module hierarchy can run to hundreds of characters).
constexpr std::size_t kRoleSourceMaxChars = 120;

void AddRoleSource(std::vector<CommRoleSource>& names, std::string_view name, double s) {
  name = name.substr(0, kRoleSourceMaxChars);
  auto same =
      std::find_if(names.begin(), names.end(), [&](const CommRoleSource& o) { return o.name == name; });
  if (same == names.end()) {
    names.push_back({std::string(name), s});
  } else {
    same->exposed_s += s;
  }
}

void SortRoleSources(std::vector<CommRoleSource>& names) {
  std::stable_sort(names.begin(), names.end(), [](const CommRoleSource& a, const CommRoleSource& b) {
    return a.exposed_s > b.exposed_s;
  });
  if (names.size() > kRoleNamesKept) names.resize(kRoleNamesKept);
}

struct KernelRole {
  std::size_t kernel;
  CommRole role;
  RoleEvidence how;
  std::string name;   // the name that said it
  std::string group;  // process group name and ranks, "" without a collective record
  CKind kind;
};

// A named role holds a (group, kind) when it has at least this share of the named time there.
constexpr double kGroupRoleMinShare = 0.9;

// Collectives whose launch names no role take the role named for the others of the same process
// group and kind: a group carries one kind of traffic, and the backward of an MoE layer's
// dispatch runs under autograd's ranges, not the layer's. Only a role that holds nearly all of
// the named collectives there is inherited.
void InheritGroupRoles(std::vector<KernelRole>& found) {
  std::map<std::pair<std::string, CKind>, std::array<std::int64_t, kCommRoleCount>> named;
  for (const KernelRole& k : found) {
    if (k.how == RoleEvidence::kNamed) ++named[{k.group, k.kind}][static_cast<std::size_t>(k.role)];
  }
  for (KernelRole& k : found) {
    if (k.role != CommRole::kUnknown) continue;
    auto it = named.find({k.group, k.kind});
    if (it == named.end()) continue;
    const auto& counts = it->second;
    std::int64_t total = 0;
    std::size_t best = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      total += counts[i];
      if (counts[i] > counts[best]) best = i;
    }
    if (total > 0 && counts[best] >= kGroupRoleMinShare * static_cast<double>(total)) {
      k.role = static_cast<CommRole>(best);
      k.how = RoleEvidence::kGroup;
    }
  }
}

}  // namespace

void CommRoles::Merge(const CommRoles& o) {
  for (std::size_t i = 0; i < kCommRoleCount; ++i) {
    CommRoleFigures& a = by_role[i];
    const CommRoleFigures& b = o.by_role[i];
    a.exposed_s += b.exposed_s;
    a.kernels += b.kernels;
    a.named += b.named;
    a.by_group += b.by_group;
    for (std::size_t f = 0; f < a.by_family_s.size(); ++f) a.by_family_s[f] += b.by_family_s[f];
    for (const auto& n : b.names) AddRoleSource(a.names, n.name, n.exposed_s);
    SortRoleSources(a.names);
  }
}

CommRoles AttributeCommRoles(const model::Trace& t, const join::Joined& j, const ActivityFacts& f) {
  CommRoles out;
  // The host thread and instant of each exposed collective's launch (its op's start without one).
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<LaunchQuery>> queries;
  std::vector<std::size_t> kernels;
  std::vector<TimeNs> launch_at(t.gpu.size(), kNoTime);
  std::vector<std::int64_t> launch_tid(t.gpu.size(), model::kNoId);
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k] || f.cls[k] != join::ActivityClass::kCollective || f.share_ns[k] <= 0) continue;
    kernels.push_back(k);
    if (f.launch[k].has_value()) {
      const std::size_t a = f.launch[k].index();
      queries[{t.api.pid[a], t.api.tid[a]}].push_back({t.api.start_ns[a], k});
      launch_at[k] = t.api.start_ns[a];
      launch_tid[k] = t.api.tid[a];
    } else if (f.op[k].has_value()) {
      const std::size_t r = f.op[k].index();
      queries[{t.cpu.pid[r], t.cpu.tid[r]}].push_back({t.cpu.start_ns[r], k});
      launch_at[k] = t.cpu.start_ns[r];
      launch_tid[k] = t.cpu.tid[r];
    }
  }
  if (kernels.empty()) return out;

  // The host ranges around each launch, innermost first: a sweep per thread over its ranges by
  // start (longer first), keeping the stack of those open.
  std::vector<std::vector<std::string>> around(t.gpu.size());
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> ranges;
  for (std::size_t r = 0; r < t.cpu.size(); ++r) {
    if (t.cpu.kind[r] == model::CpuOpKind::kStep) continue;
    auto key = std::make_pair(t.cpu.pid[r], t.cpu.tid[r]);
    if (queries.contains(key)) ranges[key].push_back(r);
  }
  for (auto& [key, qs] : queries) {
    std::sort(qs.begin(), qs.end(), [](const LaunchQuery& a, const LaunchQuery& b) { return a.at < b.at; });
    std::vector<std::size_t>& rows = ranges[key];
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      return t.cpu.start_ns[a] != t.cpu.start_ns[b] ? t.cpu.start_ns[a] < t.cpu.start_ns[b]
                                                    : t.cpu.end_ns[a] > t.cpu.end_ns[b];
    });
    std::vector<std::size_t> open;
    std::size_t next = 0;
    for (const LaunchQuery& q : qs) {
      while (next < rows.size() && t.cpu.start_ns[rows[next]] <= q.at) {
        while (!open.empty() && t.cpu.end_ns[open.back()] <= t.cpu.start_ns[rows[next]]) open.pop_back();
        open.push_back(rows[next++]);
      }
      for (auto it = open.rbegin(); it != open.rend(); ++it) {
        if (t.cpu.end_ns[*it] > q.at) around[q.kernel].push_back(AsciiLower(t.Str(t.cpu.name[*it])));
      }
    }
  }

  std::vector<KernelRole> found_of;
  found_of.reserve(kernels.size());
  for (std::size_t k : kernels) {
    const std::string_view kernel = t.Str(t.gpu.name[k]);
    const bool has_collective = j.collective[k].has_value();
    const std::string_view collective =
        has_collective ? t.Str(t.collectives.name[j.collective[k].index()]) : kernel;
    RoleContext c;
    c.kind = join::ParseCollectiveKind(collective, kernel);
    // Launched in backward: priced so, or under an autograd range (a collective has no pricing).
    c.backward = f.backward[k] != 0 || j.layer_source[k] == join::LayerSource::kForward ||
                 j.layer_source[k] == join::LayerSource::kBackward ||
                 std::any_of(around[k].begin(), around[k].end(),
                             [](const std::string& n) { return join::IsBackwardOpName(n); });
    // Inside a layer's forward: the layer's module range holds the launch on its thread (a backward
    // kernel is assigned its forward's layer, docs/layers.md, but no range holds its launch).
    std::string forward_layer;
    if (f.layer[k].has_value() && launch_at[k] != kNoTime) {
      const std::size_t l = f.layer[k].index();
      c.in_layer = t.cpu.kind[l] == model::CpuOpKind::kModule && t.cpu.tid[l] == launch_tid[k] &&
                   t.cpu.start_ns[l] <= launch_at[k] && launch_at[k] < t.cpu.end_ns[l];
      // A backward collective's layer is its forward's (docs/layers.md): the module that ran the
      // forward names the backward's role too (an MoE layer's combine in backward is its dispatch's).
      if (!c.in_layer && t.cpu.kind[l] == model::CpuOpKind::kModule)
        forward_layer = AsciiLower(t.Str(t.cpu.name[l]));
    }
    if (has_collective) {
      std::string_view pg = t.Str(t.collectives.pg_name[j.collective[k].index()]);
      if (!pg.empty()) c.names.push_back(AsciiLower(pg));
    }
    for (auto& n : around[k]) c.names.push_back(std::move(n));
    if (!forward_layer.empty()) c.names.push_back(std::move(forward_layer));
    if (f.op[k].has_value()) {
      std::string_view modules = t.Str(t.cpu.module_hierarchy[f.op[k].index()]);
      if (!modules.empty()) c.names.push_back(AsciiLower(modules));
    }
    const RoleFound found = RoleOf(c);
    std::string group;
    if (has_collective) {
      const std::size_t row = j.collective[k].index();
      group = fmt::format("{}|{}", t.Str(t.collectives.pg_name[row]), t.Str(t.collectives.pg_ranks[row]));
    }
    found_of.push_back({k, found.role, found.how, std::string(found.name), std::move(group), c.kind});
  }
  InheritGroupRoles(found_of);
  for (const KernelRole& kr : found_of) {
    const double s = f.share_ns[kr.kernel] / static_cast<double>(kNsPerS);
    CommRoleFigures& r = out[kr.role];
    r.exposed_s += s;
    ++r.kernels;
    r.by_family_s[static_cast<std::size_t>(FamilyOf(kr.kind))] += s;
    if (kr.how == RoleEvidence::kNamed) {
      ++r.named;
      AddRoleSource(r.names, kr.name, s);
    } else if (kr.how == RoleEvidence::kGroup) {
      ++r.by_group;
    }
  }
  for (auto& r : out.by_role) SortRoleSources(r.names);
  return out;
}

}  // namespace plasmient::verdict
