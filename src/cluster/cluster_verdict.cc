#include "cluster/cluster_verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace plasmient::cluster {

Fix StragglerFix(const Straggler& s) {
  std::string where = s.kind.empty() ? "collectives" : s.kind;
  std::string when = s.steps > 0 ? fmt::format("in {} of {} steps", s.late_steps.size(), s.steps)
                                 : fmt::format("at {} of {}", s.late_collectives, s.collectives);
  Fix f{Loss::kExposedCommunication,
        s.capacity_fraction,
        fmt::format("rank {} arrives late at {} {} ({:.1f} ms each): others wait {:.1f} ms on it; even out "
                    "its work, input pipeline or host",
                    s.rank, where, when, s.mean_late_s * 1e3, s.caused_wait_s * 1e3),
        {fmt::format("rank {}", s.rank)},
        fmt::format("rank {} was the last to arrive at {} of {} collectives", s.rank, s.late_collectives,
                    s.collectives),
        s.capacity_fraction};
  return f;
}

void AddClusterFigures(JobVerdict& job, const AnalyzeOptions& options) {
  std::vector<RankCollectives> input;
  std::vector<RankVerdict*> sources;
  for (auto& r : job.ranks) {
    if (!r.no_gpu_reason.empty()) continue;
    // Moved out for the analysis and back after it: no copy of every rank's collectives.
    input.push_back({r.rank, std::move(r.collectives), r.run.start_ns, r.run.end_ns});
    sources.push_back(&r);
  }
  if (input.size() < 2) {
    for (std::size_t i = 0; i < input.size(); ++i) sources[i]->collectives = std::move(input[i].items);
    return;
  }
  ClusterOptions o;
  o.link_bytes_per_s = options.link_bandwidth_bytes_per_s;
  o.worst_n = options.top_n;
  ClusterResult result = AnalyzeCluster(input, o);
  for (std::size_t i = 0; i < input.size(); ++i) sources[i]->collectives = std::move(input[i].items);

  // result.ranks holds each rank once, by rank; a duplicate input keeps zeros (and is a problem).
  std::size_t next = 0;
  for (RankVerdict* r : sources) {
    if (next >= result.ranks.size() || result.ranks[next].rank != r->rank) continue;
    const auto& c = result.ranks[next++];
    r->clock_offset_s = NsToSeconds(c.clock_offset_ns);
    r->clock_aligned = c.clock_aligned;
    r->wait_on_peers_s = c.wait_on_peers_s;
    r->transfer_s = c.transfer_s;
    r->caused_wait_s = c.caused_wait_s;
    r->p2p_wait_s = c.p2p_wait_s;
  }
  // The job's extent on the reference rank's clock: rank clocks can be tens of ms apart.
  bool first = true;
  for (RankVerdict* r : sources) {
    if (!r->clock_aligned) continue;
    auto offset_ns = static_cast<TimeNs>(std::llround(r->clock_offset_s * 1e9));
    TimeNs start = r->run.start_ns - offset_ns, end = r->run.end_ns - offset_ns;
    job.job.start_ns = first ? start : std::min(job.job.start_ns, start);
    job.job.end_ns = first ? end : std::max(job.job.end_ns, end);
    first = false;
  }
  for (const auto& p : result.pipeline) {
    auto r = std::find_if(sources.begin(), sources.end(), [&](RankVerdict* v) { return v->rank == p.rank; });
    job.pipeline.push_back({p, r == sources.end() ? 0 : (*r)->run.loss(Loss::kPipelineBubble)});
  }
  for (const auto& s : result.stragglers) job.fixes.push_back(StragglerFix(s));
  std::stable_sort(job.fixes.begin(), job.fixes.end(),
                   [](const Fix& a, const Fix& b) { return a.fraction > b.fraction; });
  job.stragglers = std::move(result.stragglers);
  job.collectives = std::move(result.worst_collectives);
  job.job_problems = std::move(result.problems);
  job.quality.Merge(result.quality);
}

}  // namespace plasmient::cluster
