// Fixes from evidence: one rule per loss picks the advice by what the trace shows about the
// program (docs/fixes.md).
#pragma once

#include <string>
#include <string_view>

#include "verdict/verdict.h"

namespace plasmient::verdict {

// What a capture trace is told instead of fixes: its launches ran once, to be recorded.
inline constexpr std::string_view kCaptureNoAdvice = "a graph capture: no steady state to judge";

// "1.23 s" from a second up, else "12.3 ms": how the fixes' evidence writes a duration.
std::string SecondsText(double s);
// SecondsText, "85 µs" below a millisecond and "20 ns" below a microsecond: for durations that can
// be that short (a window too small to judge, an iteration).
std::string DurationText(double s);

// The sync and blocking-copy calls that keep the job's steps from being captured as CUDA graphs,
// or 0: one per step (the usual loss.item() at its end) leaves the rest of the step capturable.
std::int64_t CaptureBlockingSyncs(const JobVerdict& job);

// Fills job.judgement from the model coverage and, below kJudgeMinCoverage, the evidence of why
// the kernels have no model (docs/verdict.md, "Judgeable"). BuildFixes calls it.
void Judge(JobVerdict& job);

// Fills job.judgement (Judge), job.fixes (losses of at least 1% of capacity, and `more`: the
// cluster layer's stragglers' fixes; largest first, once) and job.short_fixes (every loss) from
// job.job, job.evidence and the ranks' cluster figures; the job stage calls it once, as it
// assembles the job (job/combine.h).
void BuildFixes(JobVerdict& job, std::vector<Fix> more = {});  // also job.warm_up (verdict/warm_up.h)

}  // namespace plasmient::verdict
