// serve --cluster-every-s: the cluster layer over the jobs whose ranks' rows changed in the store
// (fleet/cluster_query.h), their stragglers exported as metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "fleet/cluster_query.h"
#include "serve/metrics.h"
#include "store/store.h"
#include "verdict/options.h"

namespace plasmient::serve {

// One round of the watch: every job with cluster rows at or after `since_ns`, two ranks or more,
// and new rows since the last round (`seen`) gets fleet::AnalyzeStoredCluster, its stragglers into
// `metrics`. Returns the jobs analyzed; a job that fails is reported in `errors` and retried when
// its rows change.
Result<std::int64_t> WatchStoredClusters(store::QueryableStore& store, const verdict::AnalyzeOptions& options,
                                         std::int64_t since_ns, fleet::ClusterWatchState& seen,
                                         MetricsRegistry& metrics,
                                         std::vector<std::string>* errors = nullptr);

}  // namespace plasmient::serve
