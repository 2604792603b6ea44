// The diagnosis stage's entry: after the cluster stage, the job's losses get their causes
// (diagnose/causes.h), their fixes from those causes (docs/fixes.md), the judgement of whether the
// window can be judged, and the warm-up reading (diagnose/warm_up.h). The job stage calls Diagnose
// once, as it assembles the job (job/combine.h); everything to its right reads what it wrote.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "verdict/verdict.h"

namespace plasmient::diagnose {

// What a capture trace is told instead of fixes: its launches ran once, to be recorded.
inline constexpr std::string_view kCaptureNoAdvice = "a graph capture: no steady state to judge";

// The sync and blocking-copy calls that keep the job's steps from being captured as CUDA graphs,
// or 0: one per step (the usual loss.item() at its end) leaves the rest of the step capturable.
std::int64_t CaptureBlockingSyncs(const verdict::JobVerdict& job);

// Fills job.judgement from the model coverage and, below kJudgeMinCoverage, the evidence of why
// the kernels have no model (docs/verdict.md, "Judgeable"). Diagnose calls it.
void Judge(verdict::JobVerdict& job);

// Fills job.judgement (Judge), job.warm_up (DetectWarmUp), job.fixes (losses of at least 1% of
// capacity, each with its causes, and `more`: the cluster layer's stragglers' fixes; largest
// first, once) and job.short_fixes (every loss) from job.job, job.evidence and the ranks' cluster
// figures.
void Diagnose(verdict::JobVerdict& job, std::vector<verdict::Fix> more = {});

}  // namespace plasmient::diagnose
