// Pipeline shape from send/recv pairs (cluster.h): stages S per chain and microbatches M per step.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/cluster_match.h"

namespace plasmient::cluster {

// Chains are the connected sets of ranks joined by matched send/recv pairs of known direction. In a simple
// chain the first stage is the end whose first send/recv is a send (activations flow out of it); otherwise
// stages follow rank order. M is the median, over (forward link, step), of pairs sent on the link.
std::vector<PipelineStage> InferPipelines(std::span<const RankCollectives* const> ranks, const MatchSet& set,
                                          const std::vector<std::optional<TimeNs>>& offset);

}  // namespace plasmient::cluster
