// The causes of a loss, from the evidence the rank passes recorded while each trace was in memory
// (docs/verdict.md, "Causes of host-bound idle" and "Roles of exposed communication"). The slices
// of idle and the collectives are classified in the rank pass (verdict/host_causes.h,
// verdict/comm_roles.h), where the host ranges around them are at hand; here, after the cluster
// stage, the job's merged evidence becomes each loss's breakdown: causes with their share of the
// loss, their evidence and a confidence. The fixes (diagnose/fixes.h) read them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "verdict/verdict.h"

namespace plasmient::diagnose {

// A cause of host-bound idle is listed when it holds at least this share of it.
inline constexpr double kCauseMinShare = 0.01;
// A role is listed as a cause when it holds at least this share of the exposed time.
inline constexpr double kRoleMinShare = 0.01;

// Host-bound idle (idle_s of the loss) by cause, largest share first; empty when no gap was
// attributed.
std::vector<verdict::Cause> HostCauses(const verdict::Evidence& e, double idle_s);
// Exposed communication (loss_s) by the collectives' role, largest share first.
std::vector<verdict::Cause> CommCauses(const verdict::Evidence& e, double loss_s);

// The names a cause's idle fell in: "hipFree 3.35 s, hipMalloc 12.0 ms".
std::string CauseNames(const verdict::HostCauseFigures& c, std::size_t n = 3);
// A role's families with exposed time, largest first.
std::vector<std::pair<double, verdict::CommFamily>> FamiliesBySize(const verdict::CommRoleFigures& r);

}  // namespace plasmient::diagnose
