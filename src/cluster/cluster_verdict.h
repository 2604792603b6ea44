// The cluster layer's figures in the job verdict: per-rank clock offsets and waits, stragglers
// (with a fix naming the rank), the costliest collectives, pipeline stages, mixed-job problems.
#pragma once

#include "cluster/cluster.h"
#include "verdict/analyze.h"
#include "verdict/verdict.h"

namespace plasmient::cluster {

using verdict::AnalyzeOptions;
using verdict::Fix;
using verdict::JobVerdict;
using verdict::Loss;
using verdict::RankVerdict;

// Runs AnalyzeCluster over job.ranks (sorted by rank) when two or more have GPU activity; after
// CombineRanks, before any sink reads the job.
void AddClusterFigures(JobVerdict& job, const AnalyzeOptions& options);

// "rank 5 arrives late at all_reduce in 9 of 10 steps (2.0 ms each): ..."
Fix StragglerFix(const Straggler& straggler);

}  // namespace plasmient::cluster
