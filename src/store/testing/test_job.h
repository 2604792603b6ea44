// A small two-rank job verdict with known figures, for the fleet tests.
#pragma once

#include "base/time_units.h"
#include "verdict/verdict.h"

namespace plasmient::store::testing {

inline verdict::RankVerdict MakeRank(std::int64_t rank, double wall_s, double useful_s, double comm_dur_s) {
  verdict::RankVerdict r;
  r.rank = rank;
  r.path = "rank" + std::to_string(rank) + ".json.gz";
  r.format = "kineto_json";
  r.device.name = "NVIDIA H100 SXM 80GB";
  r.device.price_per_gpu_hour = 4.0;
  r.run.wall_s = wall_s;
  r.run.end_ns = static_cast<TimeNs>(SecondsToNs(wall_s));
  r.run.useful_s = useful_s;
  r.run.kernel_union_s = wall_s * 0.75;
  r.run.loss_s[static_cast<std::size_t>(verdict::Loss::kExposedCommunication)] = wall_s - useful_s;
  verdict::StepFigures step;
  step.number = 3;
  step.figures.wall_s = 0.2;
  step.figures.useful_s = 0.05;
  r.steps = {step, step};
  verdict::KernelAggregate k;
  k.name = "sm90_gemm";
  k.op = "aten::mm";
  k.bound = verdict::Bound::kCompute;
  k.calls = 10;
  k.time_s = 0.5;
  k.lost_s = 0.25;
  r.top_kernels = {k};
  k.name = "aten::mm";
  r.top_ops = {k};
  for (std::int64_t seq = 0; seq < 2; ++seq) {
    join::CollectiveInstance c;
    c.group = "pg0";
    c.seq = seq;
    c.name = "allreduce";
    c.kind = join::CollectiveKind::kAllReduce;
    c.start_ns = 1000;
    c.end_ns = 1000 + static_cast<TimeNs>(SecondsToNs(comm_dur_s));
    r.collectives.push_back(c);
  }
  return r;
}

inline verdict::LayerFigures MakeLayer(std::string path, std::string type, std::int64_t instances,
                                       double gpu_time_s, double useful_s) {
  verdict::LayerFigures f;
  f.path = std::move(path);
  f.name = f.path;
  f.type = std::move(type);
  f.instances = instances;
  f.calls = 4 * instances;
  f.kernels = 10 * instances;
  f.gpu_time_s = gpu_time_s;
  f.useful_s = useful_s;
  f.loss_s[static_cast<std::size_t>(verdict::Loss::kMemoryBound)] = gpu_time_s - useful_s;
  f.top_kernels = {{"flash_fwd", gpu_time_s / 2}};
  return f;
}

// Rank 0: 2 s, 0.5 s useful, collectives of 0.3 s; rank 1: 2 s, 1 s useful, collectives of 0.1 s
// (rank 1 arrives last: rank 0 waits 0.2 s per collective, and the cluster layer names rank 1 the
// straggler, as job_rows_test checks). Module types: Net (3 s, 1.5 s useful) holds 2 Attention
// (2 s, 0.2 s useful); 0.5 s under no module.
inline verdict::JobVerdict MakeJob() {
  verdict::JobVerdict job;
  job.ranks = {MakeRank(0, 2.0, 0.5, 0.3), MakeRank(1, 2.0, 1.0, 0.1)};
  for (const auto& r : job.ranks) job.job.Add(r.run);
  job.device = job.ranks[0].device;
  job.bill.price_per_gpu_hour = 4.0;
  job.bill.gpu_hours = job.job.wall_s / 3600;
  job.bill.spend = job.bill.gpu_hours * 4.0;
  job.bill.target_fraction = 0.5;
  verdict::Straggler late;
  late.rank = 1;
  late.caused_wait_s = 0.4;
  late.capacity_fraction = 0.1;
  late.kind = join::CollectiveKind::kAllReduce;
  late.late_collectives = 2;
  late.collectives = 2;
  late.mean_late_s = 0.2;
  job.stragglers = {late};
  job.layers.window_s = job.job.wall_s;
  job.layers.nodes = {MakeLayer("Net_0", "Net", 1, 3.0, 1.5),
                      MakeLayer("(no module)", "(no module)", 1, 0.5, 0)};
  job.layers.types = {MakeLayer("", "Net", 1, 3.0, 1.5), MakeLayer("", "Attention", 2, 2.0, 0.2),
                      MakeLayer("", "(no module)", 1, 0.5, 0)};
  return job;
}

}  // namespace plasmient::store::testing
