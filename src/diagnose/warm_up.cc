#include "diagnose/warm_up.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "diagnose/text.h"
#include "verdict/iterations.h"

namespace plasmient::diagnose {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

namespace {

// "hipLaunchKernel 6.5 ms, nvrtcCompileProgram 1.2 ms": the warm-up causes' ranges, largest first.
std::string WarmUpCauseNames(const Evidence& e) {
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
  // The iteration basis, for ranks whose trace marks no steps: the same rule over the periods of
  // the range (or kernel) that recurs once per iteration.
  std::size_t ranks_slow_iterations = 0, ranks_with_iterations = 0;
  std::string iteration_evidence;
  double worst_iteration_excess_s = 0;
  for (const RankVerdict& r : job.ranks) {
    const Iterations& it = r.iterations;
    if (it.wall_s.size() < kWarmUpMinSteps) continue;
    ++ranks_with_iterations;
    std::vector<StepFigures> periods(it.wall_s.size());
    for (std::size_t i = 0; i < periods.size(); ++i) periods[i].figures.wall_s = it.wall_s[i];
    const SlowLeadingSteps slow = LeadingSlowSteps(periods, /*last_complete=*/true);
    if (w.iterations_source.empty()) {  // the first rank found speaks until a slow one does
      w.iterations_source = it.source;
      w.iterations_marker = it.marker;
      w.iterations = static_cast<std::int64_t>(it.wall_s.size());
      w.first_iteration_s = it.wall_s.front();
      w.iteration_reference_s = slow.reference_s;
    }
    if (slow.count == 0) continue;
    ++ranks_slow_iterations;
    double excess_s = 0;
    for (std::size_t i = 0; i < slow.count; ++i) excess_s += it.wall_s[i] - slow.reference_s;
    w.slow_iterations_excess_s += excess_s;
    if (excess_s <= worst_iteration_excess_s) continue;
    worst_iteration_excess_s = excess_s;
    w.iterations_source = it.source;
    w.iterations_marker = it.marker;
    w.iterations = static_cast<std::int64_t>(it.wall_s.size());
    w.slow_iterations = static_cast<std::int64_t>(slow.count);
    w.first_iteration_s = it.wall_s.front();
    w.iteration_reference_s = slow.reference_s;
    iteration_evidence = fmt::format(
        "{}the first of {} iterations took {}, {:.1f}× the later ones' median ({}){} (no ProfilerStep "
        "marks: iterations from the {} starts of {} {}, {} GPU activities each)",
        r.rank >= 0 ? fmt::format("rank {}: ", r.rank) : "", it.wall_s.size(),
        DurationText(it.wall_s.front()), it.wall_s.front() / slow.reference_s, DurationText(slow.reference_s),
        slow.count > 1 ? fmt::format(", and {} more after it", slow.count - 1) : "", it.occurrences,
        it.source == "gpu_kernel" ? "the kernel" : "the host range", it.marker, it.activities);
  }
  if (ranks_slow_iterations > 0 && ranks_with_iterations > 1) {
    iteration_evidence += fmt::format(" (slow leading iterations on {} of {} ranks)", ranks_slow_iterations,
                                      ranks_with_iterations);
  }
  // Host costs that happened once, early, on any rank: merged by cause and name.
  for (const RankVerdict& r : job.ranks) {
    w.once_early_s += r.once_early_s;
    for (const OnceEarlyCost& c : r.once_early) {
      auto same = std::find_if(w.once_early.begin(), w.once_early.end(), [&](const OnceEarlyCost& x) {
        return x.cause == c.cause && x.name == c.name;
      });
      if (same == w.once_early.end()) {
        w.once_early.push_back(c);
      } else {
        same->idle_s += c.idle_s;
      }
    }
  }
  std::stable_sort(w.once_early.begin(), w.once_early.end(),
                   [](const OnceEarlyCost& a, const OnceEarlyCost& b) { return a.idle_s > b.idle_s; });
  if (w.once_early.size() > kOnceEarlyKept) w.once_early.resize(kOnceEarlyKept);

  const Evidence& e = job.evidence;
  // Compilation and capture count as a warm-up's where they do not recur: the part inside the
  // steady iterations is the loop's own cost (recompiling, capturing every step), left to the
  // host-bound causes.
  double steady_s = 0;
  for (const RankVerdict& r : job.ranks) steady_s += r.steady_compile_capture_s;
  const double all_s = e.host_idle[HostCause::kCompile].idle_s + e.host_idle[HostCause::kGraphCapture].idle_s;
  const double keep = all_s > 0 ? std::clamp(1 - steady_s / all_s, 0.0, 1.0) : 0;
  const double compile_s = keep * e.host_idle[HostCause::kCompile].idle_s;
  const double capture_s = keep * e.host_idle[HostCause::kGraphCapture].idle_s;
  w.warm_up_causes_s = compile_s + capture_s + w.once_early_s;
  w.by_steps = ranks_slow > 0;
  w.by_iterations = ranks_slow_iterations > 0;
  w.by_causes = w.warm_up_causes_s >= kWarmUpMinShare * capacity_s;
  w.detected = w.by_steps || w.by_iterations || w.by_causes;
  if (!w.detected) return w;
  w.confidence = w.by_steps ? "high" : "medium";
  const double slow_excess_s = w.slow_steps_excess_s + w.slow_iterations_excess_s;
  w.share = std::min(1.0, std::max(slow_excess_s, w.by_causes ? w.warm_up_causes_s : 0.0) / capacity_s);
  std::string cause_evidence;
  if (compile_s + capture_s > 0) {
    const std::string names = WarmUpCauseNames(e);
    cause_evidence =
        fmt::format("{} hold {} of GPU idle, {:.0f}% of the window{}",
                    compile_s >= capture_s ? "compilation and module loading" : "graph capture",
                    SecondsText(compile_s + capture_s), 100 * (compile_s + capture_s) / capacity_s,
                    names.empty() ? "" : " (" + names + ")");
  }
  if (w.once_early_s > 0) {
    std::string names;
    for (std::size_t i = 0; i < w.once_early.size() && i < 3; ++i) {
      const OnceEarlyCost& c = w.once_early[i];
      names += fmt::format("{}{} {} ({})", i == 0 ? "" : ", ", c.name, SecondsText(c.idle_s),
                           HostCauseName(c.cause));
    }
    cause_evidence += fmt::format("{}host costs seen only in the first iterations hold {} of GPU idle ({})",
                                  cause_evidence.empty() ? "" : "; ", SecondsText(w.once_early_s), names);
  }
  std::string slow_evidence = step_evidence;
  if (!iteration_evidence.empty()) slow_evidence += (slow_evidence.empty() ? "" : "; ") + iteration_evidence;
  w.evidence = slow_evidence.empty()                    ? cause_evidence
               : cause_evidence.empty() || !w.by_causes ? slow_evidence
                                                        : slow_evidence + "; " + cause_evidence;
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
  } else if (w.by_iterations) {
    w.fix = fmt::format(
        "the figures include the run's warm-up (its first {}): {}{}",
        w.slow_iterations == 1 ? std::string("iteration") : fmt::format("{} iterations", w.slow_iterations),
        later,
        e.pytorch() ? "; or mark the iterations (prof.step() each one) so that --steps can leave them out"
                    : "");
  } else if (capture_s > compile_s && capture_s >= w.once_early_s) {
    w.fix = "the window holds graph capture, not the replays: " + later;
  } else if (compile_s >= w.once_early_s) {
    w.fix = "the window holds compilation and module loading, not the steady state: " + later +
            (e.pytorch() ? "; keep compiled kernels between runs (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR)"
                         : "");
  } else {
    w.fix = "the window holds the run's first-iteration costs, not the steady state: " + later;
  }
  return w;
}

}  // namespace plasmient::diagnose
