// Fixes from evidence (docs/fixes.md): each loss's advice is chosen by what the trace shows
// about the program, and carries the numbers that chose it.
#include "verdict/fix_rules.h"

#include <algorithm>

#include <fmt/format.h>

#include "verdict/layers.h"

namespace plasmient::verdict {
namespace {

constexpr double kMinFixFraction = 0.01;  // losses under 1% of capacity get no fix line
// A profile's first and last steps often end in a synchronization (the profiler's own, a final
// loss print): below this count, syncs are not the loop's pattern.
constexpr std::int64_t kMinHostSyncs = 8;
// Score-matrix softmaxes taking this share of the memory-bound time mark eager attention.
constexpr double kEagerAttentionMinShare = 0.2;

// A module type named in a fix holds at least this share of the loss's time under the tree:
// below it, no single type owns the loss and naming one would mislead.
constexpr double kFixLayerMinShareOfLoss = 0.5;

struct Advice {
  std::string action, short_action, evidence;
};

std::string Count(std::int64_t n, std::string_view what) { return fmt::format("{} {}", n, what); }

Advice ComputeAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  if (job.device.peak_dtype == "fp32" && e.fp32_tensor_peak_flops_per_s > 2 * job.device.peak_flops_per_s) {
    return {
        fmt::format("fp32 GEMMs run on the FP32 pipe ({:.0f} TFLOPS); the tensor cores give {:.0f}: enable "
                    "TF32 (torch.backends.cuda.matmul.allow_tf32 = True) or bf16 autocast",
                    job.device.peak_flops_per_s / 1e12, e.fp32_tensor_peak_flops_per_s / 1e12),
        "TF32 or bf16, not fp32", "the dominant dtype is fp32 on a device with a faster tensor pipe"};
  }
  return {e.pytorch() ? "raise GEMM efficiency: larger or 64/128-aligned shapes, fewer tiny GEMMs, bf16/fp8, "
                        "torch.compile"
                      : "raise kernel efficiency: larger, aligned problem sizes; tensor-core data types",
          "tune GEMM shapes and dtypes", ""};
}

Advice MemoryAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  const double memory_bound_s = job.job.loss_s[static_cast<std::size_t>(Loss::kMemoryBound)];
  if (memory_bound_s > 0 && e.score_softmax_s >= kEagerAttentionMinShare * memory_bound_s) {
    return {
        "attention runs eagerly (matmul, softmax, matmul materialize the score matrix): use fused "
        "attention (torch.nn.functional.scaled_dot_product_attention / FlashAttention)",
        "fused attention (SDPA)",
        fmt::format("softmax over L×L attention scores: {:.1f} ms, {:.0f}% of the memory-bound time",
                    e.score_softmax_s * 1e3, 100 * e.score_softmax_s / memory_bound_s)};
  }
  return {e.pytorch()
              ? "fuse elementwise/norm/softmax kernels into their producers (torch.compile) and raise "
                "arithmetic intensity or batch size"
              : "fuse elementwise kernels into their producers and raise arithmetic intensity or batch size",
          "fuse kernels, raise batch", ""};
}

Advice UnmodeledAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  if (!e.pytorch()) {
    return {
        "these kernels have no FLOP model (the program is not PyTorch, so no op shapes): pass "
        "--model-flops-per-step to judge the run against its own FLOPs",
        "no model: --model-flops-per-step", "no aten:: ops in the trace"};
  }
  if (e.ops_with_shapes == 0) {
    return {
        "record shapes (torch.profiler record_shapes=True) so these kernels' ops can be priced, or pass "
        "--model-flops-per-step",
        "record shapes to judge them", "no op in the trace carries Input Dims"};
  }
  return {
      "the ops that launched these kernels have no FLOP model (see culprits); pass --model-flops-per-step "
      "for MFU",
      "ops without a FLOP model",
      fmt::format("{} ops carry shapes; these kernels' ops are not modeled", e.ops_with_shapes)};
}

Advice CommunicationAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  if (e.communication_s > 0 && e.all_to_all_s >= 0.5 * e.communication_s) {
    return {
        "the exposed communication is mostly all-to-all: overlap dispatch/combine with expert compute, "
        "or cut its volume (capacity factor, top-k, expert placement)",
        "overlap all-to-all",
        fmt::format("{:.0f}% of communication kernel time in all-to-all",
                    100 * e.all_to_all_s / e.communication_s)};
  }
  if (!e.training()) {
    return {
        "overlap communication with compute (asynchronous collectives beside independent work), fewer "
        "and larger collectives, or fix the rank that arrives late",
        "overlap comm with compute", "no backward ops: inference"};
  }
  return {"overlap communication with backward (bucket sizes, prefetch), or fix the rank that arrives late",
          "overlap comm with backward", Count(e.backward_ops, "backward ops: training")};
}

Advice HostAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  if (e.graph_launches > 0) {
    return {
        "the GPU idles between CUDA-graph replays: capture more of the step in the graph and overlap the "
        "host's work between replays (data loading, sampling, scheduling)",
        "capture more, overlap host work", Count(e.graph_launches, "graph launches")};
  }
  if (e.host_syncs >= kMinHostSyncs) {
    return {
        "remove host synchronizations from the loop (.item(), .cpu(), .tolist(), printing tensors, "
        "synchronous copies to the host): the host waits, then the GPU does",
        "remove host syncs",
        Count(e.host_syncs, "synchronizing calls (stream/device/event sync, sync copies)")};
  }
  if (e.pytorch()) {
    return {
        "CUDA graphs (torch.compile mode=\"reduce-overhead\") or larger launches, async data loading "
        "(pinned memory, workers)",
        "CUDA graphs, async loading", ""};
  }
  return {"fewer and larger launches, or CUDA graphs; keep the host ahead of the GPU",
          "fewer, larger launches", "no aten:: ops in the trace"};
}

Advice DataMovementAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  if (e.pageable_copies > 0) {
    return {
        "copies to or from pageable host memory are synchronous and slow: pin the host buffers "
        "(pin_memory=True) and copy with non_blocking=True",
        "pin host memory", Count(e.pageable_copies, "copies from or to pageable memory")};
  }
  return {"non_blocking copies overlapped with compute; keep tensors on the device",
          "async copies, stay on device", ""};
}

Advice AdviceFor(const JobVerdict& job, Loss loss) {
  switch (loss) {
    case Loss::kComputeInefficiency:
      return ComputeAdvice(job);
    case Loss::kMemoryBound:
      return MemoryAdvice(job);
    case Loss::kUnmodeledKernels:
      return UnmodeledAdvice(job);
    case Loss::kExposedCommunication:
      return CommunicationAdvice(job);
    case Loss::kPipelineBubble:
      return {"more microbatches per step or an interleaved 1F1B schedule", "more microbatches, interleave",
              ""};
    case Loss::kHostBoundIdle:
      return HostAdvice(job);
    case Loss::kDataMovement:
      return DataMovementAdvice(job);
    case Loss::kCount:
      break;
  }
  return {};
}

// Among the types holding at least kFixLayerMinShareOfLoss of the loss, the one holding the least:
// types nest (a Qwen2Attention inside a Qwen2DecoderLayer inside the Qwen2Model), and the inner
// type that still owns most of the loss is the one to act on.
std::optional<FixLayer> LayerOf(const Layers& layers, Loss loss) {
  const auto l = static_cast<std::size_t>(loss);
  double total = 0;
  for (const auto& n : layers.nodes) total += n.depth == 0 ? n.loss_s[l] : 0;
  if (total <= 0 || !layers.has_ranges()) return std::nullopt;
  const LayerFigures* best = nullptr;
  for (const auto& t : layers.types) {
    if (IsCatchAllLayer(t.type) || t.loss_s[l] < kFixLayerMinShareOfLoss * total) continue;
    if (!best || t.loss_s[l] < best->loss_s[l]) best = &t;
  }
  if (!best) return std::nullopt;
  const double gpu_time = layers.gpu_time_s();
  return FixLayer{.type = best->type,
                  .instances = best->instances,
                  .share_of_gpu_time = gpu_time > 0 ? best->gpu_time_s / gpu_time : 0,
                  .achieved_fraction = best->achieved_fraction(),
                  .loss_fraction = best->loss_fraction(loss),
                  .share_of_loss = best->loss_s[l] / total,
                  .top_kernel = best->top_kernels.empty() ? "" : best->top_kernels.front().first};
}

}  // namespace

void BuildFixes(JobVerdict& job) {
  job.fixes.clear();
  for (std::size_t i = 0; i < kLossCount; ++i) {
    const auto loss = static_cast<Loss>(i);
    Advice a = AdviceFor(job, loss);
    job.short_fixes[i] = a.short_action;
    const double fraction = job.job.loss(loss);
    if (fraction < kMinFixFraction) continue;
    Fix f{
        loss, fraction, std::move(a.action), {}, std::move(a.evidence), fraction, LayerOf(job.layers, loss)};
    for (const auto& k : job.top_kernels) {
      if (k.loss == loss && f.culprits.size() < 3) f.culprits.push_back(k.name);
    }
    job.fixes.push_back(std::move(f));
  }
  std::sort(job.fixes.begin(), job.fixes.end(),
            [](const Fix& a, const Fix& b) { return a.fraction > b.fraction; });
}

}  // namespace plasmient::verdict
