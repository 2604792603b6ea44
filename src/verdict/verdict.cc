#include "verdict/verdict.h"

#include <algorithm>

#include "base/result.h"

namespace plasmient::verdict {
namespace {

struct LossText {
  Loss loss;
  std::string_view key, label, fix, short_fix;
};

constexpr LossText kLossText[] = {
    {Loss::kComputeInefficiency, "compute_inefficiency", "compute below peak",
     "raise GEMM efficiency: larger or 64/128-aligned shapes, fewer tiny GEMMs, bf16/fp8, torch.compile",
     "tune GEMM shapes and dtypes"},
    {Loss::kMemoryBound, "memory_bound", "memory-bound kernels",
     "fuse elementwise/norm/softmax kernels into their producers and raise arithmetic intensity or batch "
     "size",
     "fuse kernels, raise batch"},
    {Loss::kUnmodeledKernels, "unmodeled_kernels", "kernels with no FLOP model",
     "record shapes (record_shapes=True) or pass --model-flops-per-step so these kernels can be judged",
     "record shapes to judge them"},
    {Loss::kExposedCommunication, "exposed_communication", "exposed all-reduce wait",
     "overlap communication with backward (bucket sizes, prefetch), or fix the rank that arrives late",
     "overlap comm with backward"},
    {Loss::kPipelineBubble, "pipeline_bubble", "pipeline bubble",
     "more microbatches per step or an interleaved 1F1B schedule", "more microbatches, interleave"},
    {Loss::kHostBoundIdle, "host_bound_idle", "host-bound idle",
     "CUDA graphs or larger launches, async data loading (pinned memory, workers), no host syncs in the loop",
     "CUDA graphs, async loading"},
    {Loss::kDataMovement, "data_movement", "memcpy/memset only",
     "pinned, non_blocking copies overlapped with compute; keep tensors on the device",
     "pinned, async copies"},
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
std::string_view LossFix(Loss l) { return Text(l).fix; }
std::string_view LossShortFix(Loss l) { return Text(l).short_fix; }

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
