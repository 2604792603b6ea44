#include "verdict/warm_up.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "verdict/fix_rules.h"

namespace plasmient::verdict {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// "hipLaunchKernel 6.5 ms, nvrtcCompileProgram 1.2 ms": the warm-up causes' ranges, largest first.
std::string CauseNames(const Evidence& e) {
  std::vector<HostCauseRange> names;
  for (HostCause c : {HostCause::kCompile, HostCause::kGraphCapture}) {
    const auto& n = e.host_idle[c].names;
    names.insert(names.end(), n.begin(), n.end());
  }
  std::stable_sort(names.begin(), names.end(),
                   [](const HostCauseRange& a, const HostCauseRange& b) { return a.idle_s > b.idle_s; });
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i)
    out += fmt::format("{}{} {}", i == 0 ? "" : ", ", names[i].name, SecondsText(names[i].idle_s));
  return out;
}

}  // namespace

SlowLeadingSteps LeadingSlowSteps(std::span<const StepFigures> steps) {
  const std::size_t n = steps.size();
  if (n < kWarmUpMinSteps) return {};
  // The median of the steps after step k. The last step is left out while two others remain: its
  // window ends at its last activity, not at the next step's start, so it reads short.
  auto reference = [&](std::size_t k) {
    const std::size_t end = n - (k + 1) >= 3 ? n - 1 : n;
    std::vector<double> later;
    for (std::size_t i = k + 1; i < end; ++i) later.push_back(steps[i].figures.wall_s);
    return Median(std::move(later));
  };
  SlowLeadingSteps out;
  while (out.count < n / 2 && steps[out.count].figures.wall_s > kWarmUpStepRatio * reference(out.count)) {
    ++out.count;
  }
  out.reference_s = reference(out.count == 0 ? 0 : out.count - 1);
  return out;
}

WarmUp DetectWarmUp(const JobVerdict& job) {
  WarmUp w;
  const double capacity_s = job.job.wall_s;
  if (capacity_s <= 0) return w;
  // The step basis: the rank whose slow leading steps cost the most speaks for the job.
  std::size_t ranks_slow = 0, ranks_with_steps = 0;
  std::string step_evidence;
  double worst_excess_s = 0;
  for (const RankVerdict& r : job.ranks) {
    if (r.steps.size() >= kWarmUpMinSteps) ++ranks_with_steps;
    const SlowLeadingSteps slow = LeadingSlowSteps(r.steps);
    if (slow.count == 0) continue;
    ++ranks_slow;
    double excess_s = 0;
    for (std::size_t i = 0; i < slow.count; ++i) excess_s += r.steps[i].figures.wall_s - slow.reference_s;
    w.slow_steps_excess_s += excess_s;
    w.skip_steps = std::max<std::int64_t>(w.skip_steps, static_cast<std::int64_t>(slow.count));
    if (excess_s > worst_excess_s) {
      worst_excess_s = excess_s;
      const StepFigures& first = r.steps.front();
      step_evidence = fmt::format("{}ProfilerStep#{} took {}, {:.1f}× the later steps' median ({}){}",
                                  r.rank >= 0 ? fmt::format("rank {}: ", r.rank) : "", first.number,
                                  SecondsText(first.figures.wall_s), first.figures.wall_s / slow.reference_s,
                                  SecondsText(slow.reference_s),
                                  slow.count > 1 ? fmt::format(", and {} more step{} after it",
                                                               slow.count - 1, slow.count > 2 ? "s" : "")
                                                 : "");
    }
  }
  if (ranks_slow > 0 && ranks_with_steps > 1) {
    step_evidence += fmt::format(" (slow leading steps on {} of {} ranks)", ranks_slow, ranks_with_steps);
  }
  const Evidence& e = job.evidence;
  const double compile_s = e.host_idle[HostCause::kCompile].idle_s;
  const double capture_s = e.host_idle[HostCause::kGraphCapture].idle_s;
  w.warm_up_causes_s = compile_s + capture_s;
  w.by_steps = ranks_slow > 0;
  w.by_causes = w.warm_up_causes_s >= kWarmUpMinShare * capacity_s;
  w.detected = w.by_steps || w.by_causes;
  if (!w.detected) return w;
  w.confidence = w.by_steps ? "high" : "medium";
  w.share =
      std::min(1.0, std::max(w.slow_steps_excess_s, w.by_causes ? w.warm_up_causes_s : 0.0) / capacity_s);
  std::string cause_evidence;
  if (w.warm_up_causes_s > 0) {
    const std::string names = CauseNames(e);
    cause_evidence = fmt::format("{} hold {} of GPU idle, {:.0f}% of the window{}",
                                 compile_s >= capture_s ? "compilation and module loading" : "graph capture",
                                 SecondsText(w.warm_up_causes_s), 100 * w.warm_up_causes_s / capacity_s,
                                 names.empty() ? "" : " (" + names + ")");
  }
  w.evidence = step_evidence.empty()                    ? cause_evidence
               : cause_evidence.empty() || !w.by_causes ? step_evidence
                                                        : step_evidence + "; " + cause_evidence;
  const std::string later =
      e.pytorch()
          ? "profile after the first iterations (torch.profiler.schedule(wait=1, warmup=1, active=3))"
          : "profile after the first iterations (nsys --delay, or cudaProfilerStart/Stop around steady "
            "iterations)";
  if (w.by_steps) {
    w.fix = fmt::format(
        "the figures include the run's warm-up: read the steady state with --steps {}: (leaves "
        "out the first {}), or {}",
        w.skip_steps, w.skip_steps == 1 ? "step" : fmt::format("{} steps", w.skip_steps), later);
  } else if (capture_s > compile_s) {
    w.fix = "the window holds graph capture, not the replays: " + later;
  } else {
    w.fix = "the window holds compilation and module loading, not the steady state: " + later +
            (e.pytorch() ? "; keep compiled kernels between runs (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR)"
                         : "");
  }
  return w;
}

}  // namespace plasmient::verdict
