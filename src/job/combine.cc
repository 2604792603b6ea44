#include "job/combine.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "base/parallel.h"
#include "base/time_units.h"
#include "cluster/cluster_verdict.h"
#include "diagnose/fixes.h"
#include "job/bill.h"
#include "verdict/aggregate.h"
#include "verdict/layers.h"

namespace plasmient::job {

using verdict::AnalyzeOptions;
using verdict::JobVerdict;
using verdict::KernelAggregate;
using verdict::RankVerdict;

namespace {

using verdict::CollectiveTotals;

// Each rank's kept communication kernels, summed by name; the bandwidth counts only the calls
// that report their bytes.
std::vector<CollectiveTotals> TotalCollectives(const std::vector<RankVerdict>& ranks) {
  struct Sums {
    CollectiveTotals totals;
    double timed_bytes_s = 0;
    std::set<std::int64_t> ranks;
  };
  std::map<std::string, Sums> by_name;
  for (const auto& r : ranks) {
    for (const auto& c : r.collectives) {
      Sums& s = by_name[c.name];
      const double dur_s = NsToSeconds(c.end_ns - c.start_ns);
      ++s.totals.calls;
      s.totals.time_s += dur_s;
      if (c.bytes > 0) s.totals.bytes += c.bytes, s.timed_bytes_s += dur_s;
      s.ranks.insert(r.rank);
      s.totals.p2p |= c.p2p;
    }
  }
  std::vector<CollectiveTotals> out;
  out.reserve(by_name.size());
  for (auto& [name, s] : by_name) {
    s.totals.name = name;
    s.totals.ranks = static_cast<std::int64_t>(s.ranks.size());
    if (s.timed_bytes_s > 0) s.totals.bytes_per_s = static_cast<double>(s.totals.bytes) / s.timed_bytes_s;
    out.push_back(std::move(s.totals));
  }
  return out;
}

// By rank, then path: an order of indices, then each verdict moved along its cycle of that
// permutation, once (a verdict is large: std::sort on them moves each many times).
void SortByRank(std::vector<RankVerdict>& ranks) {
  std::vector<std::size_t> order(ranks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const RankVerdict &x = ranks[a], &y = ranks[b];
    return x.rank != y.rank ? x.rank < y.rank : x.path != y.path ? x.path < y.path : a < b;
  });
  // Position i takes the verdict at order[i]; a position done points at itself.
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    RankVerdict held = std::move(ranks[i]);
    std::size_t to = i;
    for (std::size_t from = order[to]; from != i; to = from, from = order[to]) {
      ranks[to] = std::move(ranks[from]);
      order[to] = to;
    }
    ranks[to] = std::move(held);
    order[to] = to;
  }
}

}  // namespace

JobVerdict CombineRanks(std::vector<RankVerdict> ranks, const AnalyzeOptions& o, const SetAside& set_aside) {
  JobVerdict job;
  SortByRank(ranks);
  // The cluster layer first: its figures of each rank (clock offsets, waits) are the ranks' own
  // before anything below reads them.
  cluster::ClusterReading cluster = cluster::ReadCluster(ranks, o);
  cluster::SetRankFigures(ranks, cluster);
  // The ranks' own lists, merged in place: copied into one list, a large job's top kernels and
  // ops were tens of MB of fresh memory.
  std::vector<const std::vector<KernelAggregate>*> kernels, ops;
  double model_flops = 0;
  bool all_model = true;
  for (auto& r : ranks) {
    job.quality.Merge(r.quality);
    job.evidence.Merge(r.evidence);  // a rank with no GPU activity has only its graph counts
    if (!r.no_gpu_reason.empty()) continue;
    if (job.device.name.empty()) job.device = r.device;
    job.job.Add(r.run);
    job.hardware_flops += r.hardware_flops;
    job.compute_kernel_s += r.compute_kernel_s;
    job.modeled_compute_s += r.modeled_compute_s;
    job.capacity_flops += r.capacity_flops;
    if (job.model_flops_source.empty()) job.model_flops_source = r.model_flops_source;
    if (r.model_flops >= 0) {
      model_flops += r.model_flops;
    } else {
      all_model = false;
    }
    kernels.push_back(&r.top_kernels);
    ops.push_back(&r.top_ops);
  }
  // The job's extent on the reference rank's clock where the ranks' clocks are aligned to it.
  if (auto extent = cluster::AlignedExtent(ranks)) std::tie(job.job.start_ns, job.job.end_ns) = *extent;
  if (all_model && job.capacity_flops > 0) job.model_flops = model_flops;
  if (job.model_flops_source.starts_with("derived")) {
    const auto coverage = job.model_coverage();
    if (!coverage || *coverage < verdict::kMfuMinCoverage) {
      job.model_flops = -1;
      job.model_flops_source = fmt::format(
          "not reported: FLOP or byte models cover {:.0f}% of compute-kernel time, below the {:.0f}% that "
          "derived model FLOPs need (pass --model-flops-per-step)",
          100 * coverage.value_or(0), 100 * verdict::kMfuMinCoverage);
    } else if (job.model_flops > job.hfu() * job.capacity_flops * verdict::kAbovePeakTolerance) {
      job.quality.Add(model::Dq::kMfuAboveHfu);
    }
  }
  job.ranks = std::move(ranks);  // the lists above move with the vector's storage
  const std::size_t threads = o.cores > 0 ? o.cores : std::max(1u, std::thread::hardware_concurrency());
  // Each merge reads the ranks and writes only its own list, as a plain loop: the same figures
  // on any number of threads.
  const std::function<void()> merges[] = {
      [&] { job.top_kernels = verdict::MergeAggregates(kernels, o.top_n); },
      [&] { job.top_ops = verdict::MergeAggregates(ops, o.top_n); },
      [&] { job.collective_totals = TotalCollectives(job.ranks); }};
  RunConcurrently(threads, merges);
  job.layers = verdict::MergeLayers(job.ranks, threads);
  // Per-rank lists stay short in the output; the job lists carry the detail.
  for (auto& r : job.ranks) {
    if (r.top_kernels.size() > o.top_n) r.top_kernels.resize(o.top_n);
    if (r.top_ops.size() > o.top_n) r.top_ops.resize(o.top_n);
  }
  job.pipeline = std::move(cluster.pipeline);
  job.stragglers = std::move(cluster.stragglers);
  job.collectives = std::move(cluster.collectives);
  job.job_problems = std::move(cluster.problems);
  job.quality.Merge(cluster.quality);
  job.quality.Add(model::Dq::kDuplicateInput, set_aside.repeated);
  job.quality.Add(model::Dq::kSkippedInput, set_aside.skipped);
  diagnose::Diagnose(job, std::move(cluster.fixes));
  job.bill = WindowBill(job.job, job.device.price_per_gpu_hour, o.target_fraction);
  return job;
}

}  // namespace plasmient::job
