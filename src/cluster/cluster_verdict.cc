#include "cluster/cluster_verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cluster/slow_ops.h"

namespace plasmient::cluster {

namespace {

// Slow ops the fix names one by one; the others are counted.
constexpr std::size_t kSlowOpsNamed = 3;

// "aten::mm [[8, 512], [512, 1024]]"; a kernel under no op by its name.
std::string SlowOpName(const verdict::SlowOp& o) {
  if (o.op.empty()) return o.kernel;
  return o.shapes.empty() ? o.op : fmt::format("{} {}", o.op, o.shapes);
}

Fix StragglerAdvice(const Straggler& s) {
  std::string where = s.kind ? std::string(CollectiveKindName(*s.kind)) : "collectives";
  // Steps where it caused the most wait, when it did in any; else its late collectives.
  std::string when = s.steps > 0 && !s.late_steps.empty()
                         ? fmt::format("in {} of {} steps", s.late_steps.size(), s.steps)
                         : fmt::format("at {} of {}", s.late_collectives, s.collectives);
  std::string late =
      fmt::format("rank {} arrives late at {} {} ({:.1f} ms each): others wait {:.1f} ms on it", s.rank,
                  where, when, s.mean_late_s * 1e3, s.caused_wait_s * 1e3);
  const double lateness = s.late_start_s + s.slow_work_s;
  const double work_share = lateness > 0 ? s.slow_work_s / lateness : 1;
  std::string arrivals = fmt::format(
      "rank {} was the last to arrive at {} of {} collectives; of its lateness {:.1f} ms is a late start "
      "and {:.1f} ms slower work; {} ({:.0f}% confidence{})",
      s.rank, s.late_collectives, s.collectives, s.late_start_s * 1e3, s.slow_work_s * 1e3,
      s.cause == "late_start" ? "late start" : "slow work", 100 * s.confidence,
      s.cause_steps <= 1 && s.steps <= 1 ? ": the evidence is one step" : "");
  if (s.cause == "late_start") {
    // Its work took no longer than its peers': evening it out recovers nothing.
    return {Loss::kExposedCommunication,
            s.capacity_fraction,
            late +
                "; its step begins late (its work takes no longer than its peers'): look at what runs "
                "before its step (host, input pipeline, the previous step's tail)",
            {fmt::format("rank {}", s.rank)},
            arrivals,
            s.capacity_fraction * work_share};
  }
  if (s.slow_ops.empty()) {
    return {Loss::kExposedCommunication,
            s.capacity_fraction,
            late + "; even out its work, input pipeline or host",
            {fmt::format("rank {}", s.rank)},
            arrivals,
            s.capacity_fraction * work_share};
  }
  // Its own ops run slower than the same ops elsewhere: the GPU (or its share of the work) is
  // where the lateness comes from, and evening those ops out recovers the share they explain.
  std::string ops, evidence;
  std::vector<std::string> culprits{fmt::format("rank {}", s.rank)};
  double explained = 0, others_excess_s = 0;
  for (const auto& o : s.slow_ops) explained += o.share_of_lateness;
  for (std::size_t i = 0; i < s.slow_ops.size(); ++i) {
    const verdict::SlowOp& o = s.slow_ops[i];
    if (i >= kSlowOpsNamed) {
      others_excess_s += o.excess_s;
      continue;
    }
    const double ratio = o.median_s > 0 ? o.rank_s / o.median_s : 0;
    ops += fmt::format("{}{} {:.2f}×", ops.empty() ? "" : ", ", o.op.empty() ? o.kernel : o.op, ratio);
    evidence += fmt::format(
        "; {} ({}): {:.2f} ms vs {:.2f} ms on the median rank over {} steps, +{:.2f} ms, "
        "{:.0f}% of its lateness",
        SlowOpName(o), o.kernel, o.rank_s * 1e3, o.median_s * 1e3, o.steps, o.excess_s * 1e3,
        100 * o.share_of_lateness);
    if (std::find(culprits.begin(), culprits.end(), o.kernel) == culprits.end()) culprits.push_back(o.kernel);
  }
  if (s.slow_ops.size() > kSlowOpsNamed) {
    const std::size_t more = s.slow_ops.size() - kSlowOpsNamed;
    ops += fmt::format(" and {} more", more);
    evidence += fmt::format("; {} more slow {}: +{:.2f} ms; together {:.0f}% of its lateness", more,
                            more == 1 ? "op" : "ops", others_excess_s * 1e3, 100 * std::min(1.0, explained));
  }
  return {Loss::kExposedCommunication,
          s.capacity_fraction,
          fmt::format("{}; its own ops run slower than the same ops on the other ranks ({}): check that "
                      "GPU (clocks, thermals, another process) and its share of the data",
                      late, ops),
          std::move(culprits),
          arrivals + evidence,
          s.capacity_fraction * std::min({1.0, explained, work_share})};
}

}  // namespace

Fix StragglerFix(const Straggler& s) {
  Fix fix = StragglerAdvice(s);
  if (s.kind) fix.family = verdict::FamilyOf(*s.kind);  // its label names the collective it holds up
  return fix;
}

ClusterReading ReadCluster(std::span<RankVerdict> ranks, const AnalyzeOptions& options) {
  std::vector<RankCollectives> input;
  std::vector<RankVerdict*> sources;
  for (auto& r : ranks) {
    if (!r.no_gpu_reason.empty()) continue;
    // Moved out for the analysis and back after it: no copy of every rank's collectives.
    input.push_back({r.rank, std::move(r.collectives), r.run.start_ns, r.run.end_ns});
    for (const auto& s : r.steps) {
      if (s.number >= 0) input.back().step_starts.emplace_back(s.number, s.figures.start_ns);
    }
    std::sort(input.back().step_starts.begin(), input.back().step_starts.end());
    sources.push_back(&r);
  }
  ClusterReading out;
  if (input.size() < 2) {
    for (std::size_t i = 0; i < input.size(); ++i) sources[i]->collectives = std::move(input[i].items);
    return out;
  }
  ClusterOptions o;
  o.link_bytes_per_s = options.link_bandwidth_bytes_per_s;
  o.worst_n = options.top_n;
  ClusterResult result = AnalyzeCluster(input, o);
  for (std::size_t i = 0; i < input.size(); ++i) sources[i]->collectives = std::move(input[i].items);

  for (const auto& p : result.pipeline) {
    auto r = std::find_if(sources.begin(), sources.end(), [&](RankVerdict* v) { return v->rank == p.rank; });
    out.pipeline.push_back({p, r == sources.end() ? 0 : (*r)->run.loss(Loss::kPipelineBubble)});
  }
  const std::vector<const RankVerdict*> analyzed(sources.begin(), sources.end());
  for (auto& s : result.stragglers) {
    s.slow_ops = SlowOpsOf(analyzed, s);
    out.fixes.push_back(StragglerFix(s));
  }
  out.ranks = std::move(result.ranks);
  out.stragglers = std::move(result.stragglers);
  out.collectives = std::move(result.worst_collectives);
  out.problems = std::move(result.problems);
  out.quality = result.quality;
  return out;
}

void SetRankFigures(std::span<RankVerdict> ranks, const ClusterReading& reading) {
  // reading.ranks holds each rank once, by rank, as do `ranks` but for repeats and ranks with no
  // GPU activity, which it skips.
  std::size_t next = 0;
  for (RankVerdict& r : ranks) {
    if (!r.no_gpu_reason.empty()) continue;
    if (next >= reading.ranks.size() || reading.ranks[next].rank != r.rank) continue;
    const auto& c = reading.ranks[next++];
    r.clock_offset_s = NsToSeconds(c.clock_offset_ns);
    r.clock_aligned = c.clock_aligned;
    r.wait_on_peers_s = c.wait_on_peers_s;
    r.transfer_s = c.transfer_s;
    r.caused_wait_s = c.caused_wait_s;
    r.p2p_wait_s = c.p2p_wait_s;
    r.exposed_wait_s = c.exposed_wait_s;
    r.exposed_transfer_s = c.exposed_transfer_s;
  }
}

std::optional<std::pair<TimeNs, TimeNs>> AlignedExtent(std::span<const RankVerdict> ranks) {
  std::optional<std::pair<TimeNs, TimeNs>> out;
  for (const RankVerdict& r : ranks) {
    if (!r.no_gpu_reason.empty() || !r.clock_aligned) continue;
    const auto offset_ns = SecondsToNearestNs(r.clock_offset_s);
    const TimeNs start = r.run.start_ns - offset_ns, end = r.run.end_ns - offset_ns;
    out = out ? std::pair{std::min(out->first, start), std::max(out->second, end)} : std::pair{start, end};
  }
  return out;
}

}  // namespace plasmient::cluster
