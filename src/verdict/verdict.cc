#include "verdict/verdict.h"

#include <algorithm>

#include "base/result.h"

namespace plasmient::verdict {
namespace {

struct LossText {
  Loss loss;
  std::string_view key, label;  // the advice is chosen per trace: fix_rules.cc
};

constexpr LossText kLossText[] = {
    {Loss::kComputeInefficiency, "compute_inefficiency", "compute below peak"},
    {Loss::kMemoryBound, "memory_bound", "memory-bound kernels"},
    {Loss::kUnmodeledKernels, "unmodeled_kernels", "kernels with no FLOP model"},
    {Loss::kExposedCommunication, "exposed_communication", "exposed all-reduce wait"},
    {Loss::kPipelineBubble, "pipeline_bubble", "pipeline bubble"},
    {Loss::kHostBoundIdle, "host_bound_idle", "host-bound idle"},
    {Loss::kDataMovement, "data_movement", "memcpy/memset only"},
};
static_assert(std::size(kLossText) == kLossCount);

const LossText& Text(Loss l) {
  auto i = static_cast<std::size_t>(l);
  PLASMIENT_CHECK(i < kLossCount && kLossText[i].loss == l);
  return kLossText[i];
}

}  // namespace

std::string_view LossKey(Loss l) { return Text(l).key; }
std::string_view LossLabel(Loss l) { return Text(l).label; }

std::string_view VerdictWords(const Figures& f) {
  const double achieved = f.achieved(), util = f.utilization();
  if (util < 0.5) return "mostly idle";
  if (achieved < 0.1 || (util >= 0.8 && achieved < 0.3)) return "busy, not useful";
  if (achieved >= 0.5) return "well used";
  return "partly useful";
}

void Figures::Add(const Figures& o) {
  if (wall_s == 0) {
    start_ns = o.start_ns;
    end_ns = o.end_ns;
  } else {
    start_ns = std::min(start_ns, o.start_ns);
    end_ns = std::max(end_ns, o.end_ns);
  }
  wall_s += o.wall_s;
  kernel_union_s += o.kernel_union_s;
  useful_s += o.useful_s;
  for (std::size_t i = 0; i < kLossCount; ++i) loss_s[i] += o.loss_s[i];
}

double KernelAggregate::ceiling_flops_per_s() const {
  if (bytes <= 0 || memory_bandwidth_bytes_per_s <= 0) return peak_flops_per_s;
  return std::min(peak_flops_per_s, arithmetic_intensity() * memory_bandwidth_bytes_per_s);
}

double KernelAggregate::achieved_fraction() const {
  if (time_s <= 0 || peak_flops_per_s <= 0) return 0;
  return flops / time_s / peak_flops_per_s;
}

double KernelAggregate::roofline_fraction() const {
  if (time_s <= 0) return 0;
  if (flops <= 0) {  // byte-only model: the share of memory bandwidth achieved
    return memory_bandwidth_bytes_per_s > 0 && bytes > 0 ? bytes / time_s / memory_bandwidth_bytes_per_s : 0;
  }
  double ceiling = ceiling_flops_per_s();
  return ceiling > 0 ? flops / time_s / ceiling : 0;
}

std::optional<double> JobVerdict::model_coverage() const {
  if (compute_kernel_s <= 0) return std::nullopt;
  return modeled_compute_s / compute_kernel_s;
}

std::optional<double> JobVerdict::mfu() const {
  if (model_flops < 0 || capacity_flops <= 0) return std::nullopt;
  // Not clamped to HFU: a derived MFU above it is reported in data quality (mfu_above_hfu).
  return model_flops / capacity_flops;
}

}  // namespace plasmient::verdict
