// `plasmient fleet --job J --cluster`: the cluster layer (src/cluster) over the rows each rank's
// analysis left in a store (rank_collectives, cluster_ranks, rank_verdicts), so that no trace
// moves: each rank is analyzed where it was recorded, and the job's clocks, waits, stragglers
// and pipeline bubbles are computed from the store (docs/fleet.md, "The cluster over the store").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "store/store.h"
#include "verdict/options.h"
#include "verdict/verdict.h"

namespace plasmient::fleet {

struct StoredClusterJob {
  verdict::JobVerdict job;           // one rank per stored rank: its run figures, window and collectives
  std::int64_t collective_rows = 0;  // rows read from rank_collectives
  std::int64_t analyses = 0;         // analyses (job keys) the ranks came from
};

// Reads job `job_id`'s ranks from the store: for each rank, the rows of its latest analysis
// (by at_ns). Fails when the job has no cluster rows, or on a row the store cannot have written.
Result<StoredClusterJob> LoadStoredCluster(store::QueryableStore& store, const std::string& job_id);

// LoadStoredCluster, then the job assembled from its ranks exactly as `analyze DIR` assembles it
// (job::CombineRanks): offsets, waits, stragglers and their fixes, pipeline stages.
Result<StoredClusterJob> AnalyzeStoredCluster(store::QueryableStore& store, const std::string& job_id,
                                              const verdict::AnalyzeOptions& options);

// The job's rank table as `analyze DIR` prints it, then the cluster figures per rank (at most
// `limit` ranks), the stragglers, the pipeline stages, the fixes and the problems.
std::string RenderStoredCluster(const StoredClusterJob& stored, std::size_t limit);

// serve --cluster-every-s: what was last seen of each job (its ranks and newest analysis).
using ClusterWatchState = std::map<std::string, std::pair<std::int64_t, std::int64_t>>;

// The jobs with cluster rows at or after `since_ns`, two ranks or more, and new rows since the
// last call (`seen`, which records what each returned job now holds), in job order.
Result<std::vector<std::string>> ChangedClusterJobs(store::QueryableStore& store, std::int64_t since_ns,
                                                    ClusterWatchState& seen);

}  // namespace plasmient::fleet
