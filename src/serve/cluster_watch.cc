#include "serve/cluster_watch.h"

namespace plasmient::serve {

Result<std::int64_t> WatchStoredClusters(store::QueryableStore& store, const verdict::AnalyzeOptions& options,
                                         std::int64_t since_ns, fleet::ClusterWatchState& seen,
                                         MetricsRegistry& metrics, std::vector<std::string>* errors) {
  auto changed = fleet::ChangedClusterJobs(store, since_ns, seen);
  if (!changed) return std::unexpected(changed.error());
  std::int64_t analyzed = 0;
  for (const std::string& job : *changed) {
    auto stored = fleet::AnalyzeStoredCluster(store, job, options);
    if (!stored) {
      if (errors) errors->push_back(stored.error().message);
      continue;
    }
    metrics.SetCluster(job, static_cast<std::int64_t>(stored->job.ranks.size()), stored->job.stragglers);
    ++analyzed;
  }
  return analyzed;
}

}  // namespace plasmient::serve
