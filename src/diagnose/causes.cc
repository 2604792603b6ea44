#include "diagnose/causes.h"

#include <algorithm>

#include <fmt/format.h>

#include "diagnose/text.h"

namespace plasmient::diagnose {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

namespace {

// The names that said a role, or where it ran: "named by mesh_tp 1.2 ms, …".
std::string RoleEvidenceText(CommRole role, const CommRoleFigures& r) {
  std::string families;
  for (const auto& [s, family] : FamiliesBySize(r)) {
    if (r.exposed_s <= 0 || s < 0.005 * r.exposed_s) continue;
    families += fmt::format("{}{} {:.0f}%", families.empty() ? "" : ", ", CommFamilyName(family),
                            100 * s / r.exposed_s);
  }
  std::string out = fmt::format("{} exposed in {} {} ({})", SecondsText(r.exposed_s), Thousands(r.kernels),
                                r.kernels == 1 ? "kernel" : "kernels", families);
  if (r.named > 0) {
    std::string names;
    for (const auto& n : r.names)
      names += fmt::format("{}{} {}", names.empty() ? "" : ", ", n.name, SecondsText(n.exposed_s));
    out += fmt::format("; named by {}", names);
  }
  if (r.by_group > 0) {
    out += fmt::format("; {} more of the same process group and kind as named ones", Thousands(r.by_group));
  }
  if (r.named + r.by_group < r.kernels) {
    switch (role) {
      case CommRole::kDataParallel:
        out += "; launched in backward";
        break;
      case CommRole::kTensorParallel:
        out += "; launched inside a layer's forward";
        break;
      case CommRole::kPipeline:
        out += "; point-to-point sends and receives";
        break;
      case CommRole::kUnknown:
        out += "; no process group, range or module around the launch names a role";
        break;
      default:
        break;
    }
  }
  return out;
}

// Compile time read from launch calls of kSlowLaunchNs or more (no compile range on the host): the
// length of the call says the driver loads or compiles the module, inferred, not named.
bool MostlyLaunchCalls(const HostCauseFigures& c) {
  double launch_s = 0, named_s = 0;
  for (const auto& n : c.names) {
    named_s += n.idle_s;
    if (CauseOfHostRange(n.name, true) == HostCause::kLaunch) launch_s += n.idle_s;
  }
  return named_s > 0 && 2 * launch_s > named_s;
}

}  // namespace

std::vector<std::pair<double, CommFamily>> FamiliesBySize(const CommRoleFigures& r) {
  std::vector<std::pair<double, CommFamily>> out;
  for (std::size_t i = 0; i < r.by_family_s.size(); ++i) {
    if (r.by_family_s[i] > 0) out.emplace_back(r.by_family_s[i], static_cast<CommFamily>(i));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

std::vector<Cause> CommCauses(const Evidence& e, double loss_s) {
  std::vector<Cause> out;
  const double total = e.comm_roles.total_s();
  if (total <= 0 || loss_s <= 0) return out;
  for (std::size_t i = 0; i < kCommRoleCount; ++i) {
    const auto role = static_cast<CommRole>(i);
    const CommRoleFigures& r = e.comm_roles[role];
    const double share = r.exposed_s / total;
    if (share < kRoleMinShare) continue;
    out.push_back({std::string(CommRoleName(role)), share * loss_s, share, RoleEvidenceText(role, r),
                   role == CommRole::kUnknown ? "low"
                   : 2 * r.named >= r.kernels ? "high"
                                              : "medium"});
  }
  std::stable_sort(out.begin(), out.end(), [](const Cause& a, const Cause& b) { return a.share > b.share; });
  return out;
}

std::string CauseNames(const HostCauseFigures& c, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < std::min(n, c.names.size()); ++i) {
    if (c.names[i].name.empty()) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", c.names[i].name, SecondsText(c.names[i].idle_s));
  }
  return out;
}

std::vector<Cause> HostCauses(const Evidence& e, double idle_s) {
  std::vector<Cause> out;
  const double total = e.host_idle.total_s();
  if (total <= 0 || idle_s <= 0) return out;
  for (std::size_t i = 0; i < kHostCauseCount; ++i) {
    const auto cause = static_cast<HostCause>(i);
    const HostCauseFigures& c = e.host_idle[cause];
    // The attributed gaps are the loss's slices: shares of their sum, in seconds of the loss.
    const double share = c.idle_s / total;
    if (share < kCauseMinShare) continue;
    std::string evidence = fmt::format("{} of GPU idle in {} {}", SecondsText(c.idle_s), Thousands(c.gaps),
                                       c.gaps == 1 ? "gap" : "gaps");
    if (std::string names = CauseNames(c); !names.empty()) evidence += " under " + names;
    if (c.calls > 0) {
      evidence += fmt::format("; {} such calls hold the host {}", Thousands(c.calls), SecondsText(c.call_s));
    }
    // The profiler's records say when it worked, not on which thread the launch waited for it.
    const bool inferred = cause == HostCause::kLaunch || cause == HostCause::kHostWork ||
                          cause == HostCause::kUnseenWait || cause == HostCause::kProfilerOverhead ||
                          c.other_thread || (cause == HostCause::kCompile && MostlyLaunchCalls(c));
    out.push_back({std::string(HostCauseName(cause)), share * idle_s, share, std::move(evidence),
                   cause == HostCause::kUnknown ? "low"
                   : inferred                   ? "medium"
                                                : "high"});
  }
  std::stable_sort(out.begin(), out.end(), [](const Cause& a, const Cause& b) { return a.share > b.share; });
  return out;
}

}  // namespace plasmient::diagnose
