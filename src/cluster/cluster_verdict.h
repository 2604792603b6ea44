// The cluster layer's reading of a job: per-rank clock offsets and waits, stragglers (with a fix
// naming the rank), the costliest collectives, pipeline stages, mixed-job problems.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "verdict/analyze.h"
#include "verdict/verdict.h"

namespace plasmient::cluster {

using verdict::AnalyzeOptions;
using verdict::Fix;
using verdict::JobVerdict;
using verdict::Loss;
using verdict::RankVerdict;

// What the cluster layer says of a job's ranks, read once from their verdicts: the job stage
// (job/combine.h) assembles the job verdict from it and the ranks, and nothing writes it after.
struct ClusterReading {
  std::vector<RankClusterFigures> ranks;  // by rank, each once: what each rank's verdict takes
  std::vector<verdict::PipelineStageVerdict> pipeline;
  std::vector<verdict::Straggler> stragglers;           // by caused wait, with the ops that ran slower
  std::vector<Fix> fixes;                               // one per straggler, in their order
  std::vector<verdict::CollectiveFigures> collectives;  // the costliest matched collectives
  std::vector<std::string> problems;                    // why the inputs may not be one job
  model::DataQuality quality;
};

// Runs AnalyzeCluster over `ranks` (sorted by rank) when two or more have GPU activity; empty
// otherwise. Each rank's collectives are lent to the analysis and handed back unchanged.
ClusterReading ReadCluster(std::span<RankVerdict> ranks, const AnalyzeOptions& options);

// The reading's figures of each rank into its verdict (clock offset, waits, transfer), by rank; a
// repeated input, which the reading holds once, keeps zeros.
void SetRankFigures(std::span<RankVerdict> ranks, const ClusterReading& reading);

// The job's first and last instant on the reference rank's clock, over the ranks whose clocks are
// aligned to it (rank clocks can be tens of ms apart); nullopt when none is.
std::optional<std::pair<TimeNs, TimeNs>> AlignedExtent(std::span<const RankVerdict> ranks);

// "rank 5 arrives late at all_reduce in 9 of 10 steps (2.0 ms each): ..."
Fix StragglerFix(const Straggler& straggler);

}  // namespace plasmient::cluster
