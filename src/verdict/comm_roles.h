// What each exposed collective was for (docs/verdict.md, "Roles of exposed communication"): the
// role a collective plays in the program decides its fix, and its kind alone does not say it (an
// all-to-all is MoE dispatch in one model and embedding distribution in another). The role is
// read from what launched it: the process group's name, the host ranges and modules around its
// launch, and where it ran (backward, inside a layer).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "join/collective_kind.h"
#include "join/join.h"
#include "model/trace.h"

namespace plasmient::verdict {

struct ActivityFacts;

enum class CommRole : std::uint8_t {
  kDataParallel,    // gradient all-reduce/reduce-scatter in backward, FSDP/ZeRO parameter gathers
  kTensorParallel,  // collectives inside a layer's forward (row/column-parallel linears), TP groups
  kEmbedding,       // embedding distribution: TorchRec/fbgemm sparse-data and pooled-embedding dist
  kMoe,             // expert-parallel token dispatch/combine
  kPipeline,        // pipeline-parallel send/recv between stages
  kOptimizer,       // a sharded optimizer's step: gathers of updated parameters, reductions of its state
  kUnknown,         // nothing around its launch names a role
  kCount,
};
inline constexpr std::size_t kCommRoleCount = static_cast<std::size_t>(CommRole::kCount);
std::string_view CommRoleName(CommRole role);      // "data_parallel", ... (the JSON's words)
CommRole CommRoleFromName(std::string_view name);  // kUnknown for a name of no role

// How a role was found: a name said it (a process group, range or module), or where the
// collective ran implied it (backward, inside a layer), or nothing did.
// A collective of a process group and kind whose other collectives a name gave one role takes
// that role too (kGroup).
enum class RoleEvidence : std::uint8_t { kNamed, kPlaced, kGroup, kNone };

// The role of one collective from its context; `names` are the lower-cased names around its
// launch (process group, ranges innermost first, module hierarchy), `kind` its collective kind.
struct RoleContext {
  std::vector<std::string> names;
  join::CollectiveKind kind = join::CollectiveKind::kOther;
  bool backward = false;  // launched under autograd's backward pass
  bool in_layer = false;  // launched inside a layer's forward range
};
struct RoleFound {
  CommRole role = CommRole::kUnknown;
  RoleEvidence how = RoleEvidence::kNone;
  std::string_view name;  // the name that said it (a view into RoleContext::names), "" when placed
};
RoleFound RoleOf(const RoleContext& context);

struct CommRoleSource {
  std::string name;
  double exposed_s = 0;
};

struct CommRoleFigures {
  double exposed_s = 0;                 // the sweep's exposed time of its collective kernels
  std::int64_t kernels = 0;             // its collective kernels with exposed time
  std::int64_t named = 0;               // of them, those a name gave the role to
  std::int64_t by_group = 0;            // of them, those that took it from named ones of their group and kind
  std::vector<CommRoleSource> names;    // what said it (a group, range or module), by time, a few
  std::array<double, 4> by_family_s{};  // by CommFamily: all-reduce, all-to-all, gather/scatter, other
};

struct CommRoles {
  std::array<CommRoleFigures, kCommRoleCount> by_role{};
  double total_s() const;
  const CommRoleFigures& operator[](CommRole r) const { return by_role[static_cast<std::size_t>(r)]; }
  CommRoleFigures& operator[](CommRole r) { return by_role[static_cast<std::size_t>(r)]; }
  void Merge(const CommRoles& other);
};

// Every kept collective kernel with exposed time (facts.share_ns), by role.
CommRoles AttributeCommRoles(const model::Trace& trace, const join::Joined& joined,
                             const ActivityFacts& facts);

}  // namespace plasmient::verdict
