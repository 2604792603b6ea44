// An independent implementation of docs/verdict.md over GPU activity intervals that synth
// generated itself. It never reads a trace: its input is the ground-truth timeline.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/time_units.h"
#include "synth/gpu_table.h"

namespace plasmient::synth {

// The class of each generated activity, from the op that made it (docs/verdict.md, "Communication
// roles"): all-reduce and all-to-all are collectives even where NCCL runs them in SendRecv
// kernels; only the pipeline's send/recv between stages is kP2p (pipeline_bubble).
enum class ActivityClass : std::uint8_t { kCompute, kCollective, kP2p, kMemory };

// Where a compute kernel's loss goes (verdict.md "Compute: useful time and its losses").
enum class LossCategory : std::uint8_t { kNone, kComputeInefficiency, kMemoryBound, kUnmodeled };

struct TruthActivity {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  ActivityClass cls = ActivityClass::kCompute;
  Dtype dtype = Dtype::kBf16;
  bool flop_model = false;  // the launching op has a FLOP model
  bool byte_model = false;  // the launching op has a byte model
  double flops = 0;
  double bytes = 0;
  int step = 0;                 // index of the ProfilerStep that launched it
  std::uint32_t name = 0;       // caller's kernel-name index (per-name aggregates)
  std::uint32_t layer = 0;      // caller's layer index (per-module-type aggregates)
  bool graph_replayed = false;  // run by a graph launch (synth's graph scenarios)
};

struct LossSeconds {
  double compute_inefficiency = 0;
  double memory_bound = 0;
  double unmodeled_kernels = 0;
  double exposed_communication = 0;
  double pipeline_bubble = 0;
  double host_bound_idle = 0;
  double data_movement = 0;

  double Total() const;
  void Add(const LossSeconds& other);
};

struct WindowTruth {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  double span_s = 0;  // T
  double useful_s = 0;
  LossSeconds losses;
  double kernel_union_s = 0;  // utilization = kernel_union_s / span_s
  double gpu_busy_s = 0;
  double compute_s = 0;
  double communication_s = 0;
  double communication_overlapped_s = 0;

  double AchievedFraction() const { return span_s > 0 ? useful_s / span_s : 0; }
  double Utilization() const { return span_s > 0 ? kernel_union_s / span_s : 0; }
};

struct KernelTruth {  // per activity, for the run window
  // Its share of the slices its class decided: compute share, or exposed communication,
  // P2P or copy time; useful_s and category for compute kernels only.
  double share_s = 0;
  double useful_s = 0;
  LossCategory category = LossCategory::kNone;
};

struct DeviceModel {
  double peak_flops_per_s = 0;  // P for the rank's dominant dtype
  double mem_bytes_per_s = 0;   // BW
};

LossCategory ClassifyLoss(const TruthActivity& a, const DeviceModel& device);

// The dtype whose kernels carry the most modeled FLOPs; bf16 when nothing is modeled.
Dtype DominantDtype(std::span<const TruthActivity> activities);

// The sweep over [start_ns, end_ns): activities are clipped to the window; a clipped
// kernel keeps the share of its FLOPs proportional to the part of it inside.
// per_kernel (optional) receives one entry per activity (zeros outside the window).
WindowTruth ComputeWindow(std::span<const TruthActivity> activities, TimeNs start_ns, TimeNs end_ns,
                          const DeviceModel& device, std::vector<KernelTruth>* per_kernel = nullptr);

// A host stall of the generated program and the cause its GPU idle has (docs/synth.md).
struct HostStallTruth {
  TimeNs start_ns = 0, end_ns = 0;
  const char* cause = "";  // "allocator", "data_loading", "unknown", ...
};

// The GPU idle of [start_ns, end_ns) (no activity resident) that falls inside each stall, summed
// by cause, in first-seen order: what each cause of the host-bound idle holds.
std::vector<std::pair<std::string, double>> HostIdleByCause(std::span<const TruthActivity> activities,
                                                            TimeNs start_ns, TimeNs end_ns,
                                                            std::span<const HostStallTruth> stalls);

struct StepTruth {
  int step = 0;
  WindowTruth window;
};

struct RankTruth {
  WindowTruth run;
  std::vector<StepTruth> steps;  // ascending step index, windows tile the run window
  std::vector<KernelTruth> kernels;
};

// Run window W = [first start, last end); step N's window from the earliest start of
// its activities to the earliest start of step N+1's (the last ends at W's end).
RankTruth ComputeRankTruth(std::span<const TruthActivity> activities, const DeviceModel& device);

}  // namespace plasmient::synth
