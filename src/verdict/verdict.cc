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

constexpr std::string_view kBoundName[] = {"compute", "memory", "unmodeled", "communication", "memory-copy"};

}  // namespace

std::string_view BoundName(Bound b) {
  auto i = static_cast<std::size_t>(b);
  PLASMIENT_CHECK(i < std::size(kBoundName));
  return kBoundName[i];
}

Bound BoundOfLoss(Loss loss) {
  switch (loss) {
    case Loss::kMemoryBound:
      return Bound::kMemory;
    case Loss::kUnmodeledKernels:
      return Bound::kUnmodeled;
    case Loss::kExposedCommunication:
    case Loss::kPipelineBubble:
      return Bound::kCommunication;
    case Loss::kDataMovement:
      return Bound::kMemoryCopy;
    default:
      return Bound::kCompute;
  }
}

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

roofline::RooflinePoint KernelAggregate::roofline_point() const {
  return roofline::Evaluate(flops, bytes, time_s, peak_flops_per_s, memory_bandwidth_bytes_per_s);
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
