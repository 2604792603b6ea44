// Fixes from evidence (docs/fixes.md): each loss's advice is chosen by what the trace shows
// about the program, and carries the numbers that chose it.
#include "diagnose/fixes.h"

#include <algorithm>

#include <fmt/format.h>

#include "diagnose/causes.h"
#include "diagnose/text.h"
#include "diagnose/warm_up.h"
#include "roofline/device_table.h"
#include "roofline/kernel_name.h"
#include "verdict/layers.h"

namespace plasmient::diagnose {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

namespace {

constexpr double kMinFixFraction = 0.01;  // losses under 1% of capacity get no fix line
// A rule on part of a loss fires when its evidence covers at least this share of the loss:
// below it, the general advice addresses more of the lost time.
constexpr double kRuleMinShareOfLoss = 0.25;
// Glue whose lost time is at least this share in already-fused kernels is not told to fuse.
constexpr double kFusedGlueMinShare = 0.5;
// A collective family named in the exposed-communication fix holds at least this share of the
// exposed time: smaller ones are listed in the evidence only.
constexpr double kCommFamilyMinShare = 0.1;
// Score-matrix softmaxes taking this share of the memory-bound time mark eager attention.
constexpr double kEagerAttentionMinShare = 0.2;
// GEMMs with this many rows (tokens) per read of their weights are above every current part's
// ridge point in bf16 (a GEMM's intensity is about its rows when N and K are larger; the H100's
// ridge is 295 FLOP/byte): a larger batch does not make the step less memory-bound.
constexpr double kManyGemmRows = 1024;

// A module type named in a fix holds at least this share of the loss's time under the tree:
// below it, no single type owns the loss and naming one would mislead.
constexpr double kFixLayerMinShareOfLoss = 0.5;

struct Advice {
  std::string action, short_action, evidence;
  // The seconds of the loss the evidence covers: the fix recovers at most that; < 0: the whole loss.
  double recoverable_s = -1;
  std::vector<Cause> causes;
  // The kernel classes the fix acts on: its culprits are kernels of these classes (empty: any).
  std::vector<KernelClass> classes;
  // Why kernels have no model, for the unmodeled-kernels advice (Judgement::cause); "" elsewhere.
  std::string_view unmodeled_cause = {};
};

using KC = KernelClass;

// The class holding the most of `by`, and its seconds.
std::pair<KernelClass, double> LeadClass(const ClassSeconds& by) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < by.size(); ++i) {
    if (by[i] > by[best]) best = i;
  }
  return {static_cast<KernelClass>(best), by[best]};
}

// "conv 61%, gemm 30%, layout 9%": a loss's kernel classes by share.
std::string ClassShares(const ClassSeconds& by) {
  double total = 0;
  for (double s : by) total += s;
  std::vector<std::pair<double, KernelClass>> order;
  for (std::size_t i = 0; i < by.size(); ++i) {
    if (total > 0 && by[i] >= 0.005 * total) order.emplace_back(by[i], static_cast<KernelClass>(i));
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [sec, c] : order)
    out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", KernelClassName(c), 100 * sec / total);
  return out;
}

// "<what> by kernel class: …", or "" when no kernel class holds any of the loss.
std::string ClassEvidence(std::string_view what, const ClassSeconds& by) {
  const std::string shares = ClassShares(by);
  return shares.empty() ? std::string() : fmt::format("{} by kernel class: {}", what, shares);
}

double LossSeconds(const JobVerdict& job, Loss loss) {
  return job.job.loss_s[static_cast<std::size_t>(loss)];
}

std::string ShapeText(const GemmShapeLoss& s) {
  return fmt::format("{}×{}×{} {} ({}, {} kernels, {:.1f} ms)", s.mnk[0], s.mnk[1], s.mnk[2], s.dtype,
                     s.unaligned ? "unaligned" : "small", s.kernels, s.lost_s * 1e3);
}

// The faster tensor-core types the device has beside the dominant one, from its peak table:
// "bf16/fp8" on an H100, "fp16 (AMP)" on a V100 (no bf16 or fp8 pipe); "" when none is faster.
std::string FasterDtypes(const JobVerdict& job) {
  auto match = roofline::FindDeviceByKey(job.device.key);
  if (!match || !match->spec) return "bf16/fp8";
  const roofline::DeviceSpec& d = *match->spec;
  const double now = job.device.peak_flops_per_s;
  std::string out;
  auto add = [&](roofline::PeakKind kind, std::string_view name) {
    if (d.Peak(kind) <= now * 1.01) return;
    if (!out.empty()) out += '/';
    out += name;
  };
  add(roofline::PeakKind::kBf16, "bf16");
  if (d.Peak(roofline::PeakKind::kBf16) <= 0) add(roofline::PeakKind::kFp16, "fp16 (AMP)");
  add(roofline::PeakKind::kFp8, "fp8");
  return out;
}

Advice ComputeAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  // fp32 GEMMs on the FP32 pipe of a part with a TF32 tensor pipe: TF32 is the lever, unless some
  // kernel already runs faster than the FP32 pipe can (it is on the tensor cores: TF32 is on).
  if (job.device.peak_dtype == "fp32" && e.fp32_tensor_peak_flops_per_s > 2 * job.device.peak_flops_per_s &&
      job.quality.Get(model::Dq::kFlopsAbovePeak) == 0) {
    return {
        fmt::format("fp32 GEMMs run on the FP32 pipe ({:.0f} TFLOPS); the tensor cores give {:.0f}: enable "
                    "TF32 (torch.backends.cuda.matmul.allow_tf32 = True) or bf16 autocast",
                    job.device.peak_flops_per_s / 1e12, e.fp32_tensor_peak_flops_per_s / 1e12),
        "TF32 or bf16, not fp32",
        "the dominant dtype is fp32 on a device with a faster tensor pipe, and no kernel runs faster than "
        "the FP32 pipe's peak (none is on the tensor cores)",
        -1,
        {},
        {KC::kGemm, KC::kConv, KC::kAttention}};
  }
  const double loss_s = LossSeconds(job, Loss::kComputeInefficiency);
  if (loss_s > 0 && e.poor_gemm_lost_s >= kRuleMinShareOfLoss * loss_s) {
    std::string shapes;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, e.poor_gemm_shapes.size()); ++i) {
      shapes += (i ? "; " : "") + ShapeText(e.poor_gemm_shapes[i]);
    }
    return {
        "GEMMs with small or unaligned shapes leave the tensor cores idle: pad N and K to multiples of "
        "8 elements (16 for fp8, 4 for fp32/TF32; e.g. vocabulary and hidden sizes), and batch small "
        "GEMMs together (more tokens per step, grouped GEMMs)",
        "pad/batch small GEMMs",
        fmt::format("{} GEMM kernels (M×N×K) lose {:.1f} ms, {:.0f}% of the compute-below-peak loss: {}",
                    e.poor_gemm_kernels, e.poor_gemm_lost_s * 1e3, 100 * e.poor_gemm_lost_s / loss_s, shapes),
        e.poor_gemm_lost_s,
        {},
        {KC::kGemm}};
  }
  const std::string dtypes = FasterDtypes(job);
  const auto [lead, lead_s] = LeadClass(e.compute_lost_by_class);
  const std::string classes = ClassEvidence("compute below peak", e.compute_lost_by_class);
  if (loss_s > 0 && lead_s >= kRuleMinShareOfLoss * loss_s && lead == KC::kConv) {
    return {fmt::format("convolutions run below peak: run the model and its inputs channels_last "
                        "(model.to(memory_format=torch.channels_last)) so cuDNN/MIOpen pick their NHWC "
                        "tensor-core kernels, set torch.backends.cudnn.benchmark = True for fixed shapes{}",
                        dtypes.empty() ? std::string() : fmt::format(", and {} autocast", dtypes)),
            "channels_last, cudnn.benchmark",
            classes,
            lead_s,
            {},
            {KC::kConv}};
  }
  if (loss_s > 0 && lead_s >= kRuleMinShareOfLoss * loss_s && lead == KC::kAttention) {
    return {
        "fused attention kernels run below peak: they are fused already, so the lever is their shape and "
        "backend: longer sequences or more heads per kernel (pack short sequences, varlen attention), "
        "head dims of 64/128, and the newest backend the device has (FlashAttention-3 or cuDNN SDPA on "
        "Hopper)",
        "attention shapes and backend",
        classes,
        lead_s,
        {},
        {KC::kAttention}};
  }
  return {e.pytorch()
              ? fmt::format("raise GEMM efficiency: larger or 64/128-aligned shapes, fewer tiny GEMMs, {}"
                            "torch.compile",
                            dtypes.empty() ? std::string() : dtypes + ", ")
              : "raise kernel efficiency: larger, aligned problem sizes; tensor-core data types",
          "tune GEMM shapes and dtypes",
          classes,
          -1,
          {},
          {KC::kGemm}};
}

Advice MemoryAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  const double memory_bound_s = LossSeconds(job, Loss::kMemoryBound);
  if (memory_bound_s > 0 && e.score_softmax_s >= kEagerAttentionMinShare * memory_bound_s) {
    return {
        "attention runs eagerly (matmul, softmax, matmul materialize the score matrix): use fused "
        "attention (torch.nn.functional.scaled_dot_product_attention / FlashAttention)",
        "fused attention (SDPA)",
        fmt::format("softmax over L×L attention scores: {:.1f} ms, {:.0f}% of the memory-bound loss",
                    e.score_softmax_s * 1e3, 100 * e.score_softmax_s / memory_bound_s),
        e.score_softmax_s,
        {},
        {KC::kGlue, KC::kGemm}};
  }
  // A class other than the GEMMs and the glue that leads the memory-bound loss has its own fix.
  const auto [lead, lead_s] = LeadClass(e.memory_lost_by_class);
  const bool class_leads = memory_bound_s > 0 && lead_s >= kRuleMinShareOfLoss * memory_bound_s;
  const std::string classes = ClassEvidence("memory-bound", e.memory_lost_by_class);
  if (class_leads && lead == KC::kEmbedding) {
    return {
        "the embedding lookups (gathers, and their backward's scattered updates) are bound by memory "
        "bandwidth by nature: read fewer bytes per lookup (fp16 or int8 row-wise quantized tables), "
        "keep hot rows cached (FBGEMM's UVM caching), and shard the largest tables so each GPU reads "
        "fewer rows; fusing more elementwise glue will not move them",
        "fewer bytes per embedding lookup",
        classes,
        lead_s,
        {},
        {KC::kEmbedding}};
  }
  if (class_leads && lead == KC::kLayout) {
    return {
        "layout transposes (NCHW↔NHWC, batched_transpose) around the convolutions move every activation "
        "twice and do no arithmetic: run the model and its inputs channels_last "
        "(model.to(memory_format=torch.channels_last)) so the convolution kernels take NHWC directly",
        "channels_last (no transposes)",
        classes,
        lead_s,
        {},
        {KC::kLayout}};
  }
  if (class_leads && lead == KC::kAttention) {
    return {
        "fused attention is memory-bound: it reads the K/V it attends to for few queries (decode, short "
        "queries over long contexts): read fewer bytes (an fp8 KV cache, grouped-query attention), and "
        "use split-KV decode kernels (flash-decoding, paged attention) so every SM streams part of it",
        "fewer KV bytes, split-KV decode",
        classes,
        lead_s,
        {},
        {KC::kAttention}};
  }
  if (class_leads && lead == KC::kConv) {
    return {
        "convolutions are memory-bound (depthwise, 1×1 or small-channel layers read more than they "
        "compute): channels_last, fuse their norm and activation (torch.compile), larger batch",
        "channels_last, fuse conv epilogues",
        classes,
        lead_s,
        {},
        {KC::kConv}};
  }
  const double rows = e.gemm_rows();
  const std::string rows_text =
      rows > 0 ? fmt::format("; GEMM rows (M × batch, by GEMM time): {:.0f}", rows) : std::string();
  // The memory-bound loss splits into GEMMs (too few rows), the glue (elementwise kernels) and the
  // rest (attention, convolutions): the first fix addresses the largest part, when it holds a
  // rule's share of the loss.
  const double rest_s = memory_bound_s - e.memory_bound_gemm_s - e.memory_bound_glue_s;
  auto leads = [&](double part_s, double other_s) {
    return memory_bound_s > 0 && part_s >= kRuleMinShareOfLoss * memory_bound_s && part_s >= other_s &&
           part_s >= rest_s;
  };
  if (rows < kManyGemmRows && leads(e.memory_bound_gemm_s, e.memory_bound_glue_s)) {
    return {
        fmt::format("the GEMMs read their weights for about {:.0f} rows (tokens) each and wait on memory: "
                    "raise the batch (more sequences per step: continuous batching, a larger max batch), or "
                    "read fewer bytes (fp8/int4 weights)",
                    rows),
        "raise batch (few rows per GEMM)",
        fmt::format("memory-bound GEMMs: {:.1f} ms, {:.0f}% of the memory-bound loss{}",
                    e.memory_bound_gemm_s * 1e3, 100 * e.memory_bound_gemm_s / memory_bound_s, rows_text),
        e.memory_bound_gemm_s,
        {},
        {KC::kGemm}};
  }
  if (leads(e.memory_bound_glue_s, e.memory_bound_gemm_s)) {
    std::string ops;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, e.memory_glue_ops.size()); ++i) {
      ops += fmt::format("{}{} {:.1f} ms", i ? ", " : "", e.memory_glue_ops[i].first,
                         e.memory_glue_ops[i].second * 1e3);
    }
    const double glue_s = e.memory_bound_glue_s;
    const double fused = e.memory_bound_glue_fused_s / glue_s,
                 short_share = e.memory_bound_glue_short_s / glue_s;
    std::string evidence = fmt::format(
        "elementwise, norm and copy kernels: {:.1f} ms, {:.0f}% of the memory-bound loss ({}){}; {} glue "
        "kernels, {:.0f}% of their lost time in already-fused kernels, {:.0f}% in kernels under {:.0f} µs",
        glue_s * 1e3, 100 * glue_s / memory_bound_s, ops, rows_text, Thousands(e.memory_bound_glue_kernels),
        100 * fused, 100 * short_share, static_cast<double>(kShortGlueKernelNs) / kNsPerUs);
    // Glue that a compiler (or a hand-written kernel) already fused is not helped by fusing: what
    // holds it is its size (too short to stream at bandwidth) or its bytes.
    if (fused >= kFusedGlueMinShare) {
      if (short_share >= kFusedGlueMinShare) {
        return {fmt::format("the glue is already fused ({:.0f}% of its lost time in fused kernels) and its "
                            "kernels run under {:.0f} µs, too short to stream at the memory's bandwidth "
                            "(launch and tail latency hold most of their time): give each kernel more work "
                            "(a larger batch or more elements per launch); fusing further will not help",
                            100 * fused, static_cast<double>(kShortGlueKernelNs) / kNsPerUs),
                "fused already: more work per kernel",
                std::move(evidence),
                glue_s,
                {},
                {KC::kGlue}};
      }
      return {fmt::format("the glue is already fused ({:.0f}% of its lost time in fused kernels) and streams "
                          "its bytes at the memory's pace: read and write fewer bytes (bf16 or fp8 "
                          "activations), or fold it into the GEMMs' epilogues{}",
                          100 * fused, e.pytorch() ? " (torch.compile mode=\"max-autotune\")" : ""),
              "fused already: fewer bytes",
              std::move(evidence),
              glue_s,
              {},
              {KC::kGlue}};
    }
    std::string action =
        e.pytorch()
            ? "fuse the elementwise glue between the heavy ops (norms, activations, rotary embeddings, "
              "casts and copies: the ops in the evidence) into fewer kernels: torch.compile, or fused "
              "kernels for them"
            : "fuse the elementwise kernels between the heavy ones into fewer kernels";
    if (rows >= kManyGemmRows) {
      action += fmt::format("; the GEMMs already see {:.0f} rows each: a larger batch will not help", rows);
    }
    return {std::move(action), "fuse elementwise kernels", std::move(evidence), glue_s, {}, {KC::kGlue}};
  }
  return {e.pytorch()
              ? "fuse elementwise/norm/softmax kernels into their producers (torch.compile) and raise "
                "arithmetic intensity or batch size"
              : "fuse elementwise kernels into their producers and raise arithmetic intensity or batch size",
          "fuse kernels, raise batch", classes};
}

Advice UnmodeledAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  // Kernels a graph replayed with no capture to match have no op to price: that is what the trace
  // lacks, not a model the op lacks (docs/graphs.md).
  const double unmodeled_s = LossSeconds(job, Loss::kUnmodeledKernels);
  if (e.graph_unmodeled_kernels > 0 && e.graph_unmodeled_s >= kRuleMinShareOfLoss * unmodeled_s) {
    return {
        "graph-replayed, no capture trace: these kernels ran from CUDA/HIP graph replays and the trace "
        "holds no capture of the graph to take their ops and shapes from; profile the capture too "
        "(analyze REPLAY --graph-capture CAPTURE), or warm-up eager steps, or record with the live agent",
        "graph-replayed, no capture trace",
        fmt::format("{} of {} graph-replayed kernels unmodeled, {:.1f} ms, {:.0f}% of the unmodeled time",
                    e.graph_unmodeled_kernels, e.graph_replayed_kernels, e.graph_unmodeled_s * 1e3,
                    unmodeled_s > 0 ? 100 * e.graph_unmodeled_s / unmodeled_s : 0.0),
        e.graph_unmodeled_s,
        {},
        {},
        "graph_replay"};
  }
  if (!e.pytorch() && e.cpu_ranges == 0 && e.pytorch_kernels > 0) {
    return {
        "the trace was recorded without CPU activities, so no op or shape reaches these kernels: record "
        "with torch.profiler activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] and "
        "record_shapes=True, or pass --model-flops-per-step",
        "record CPU activities and shapes",
        fmt::format("no host range in the trace; {} kernels are PyTorch's own (at::native)",
                    Thousands(e.pytorch_kernels)),
        -1,
        {},
        {},
        "gpu_only"};
  }
  if (!e.pytorch()) {
    return {
        "these kernels have no FLOP model (the program is not PyTorch, so no op shapes): pass "
        "--model-flops-per-step to judge the run against its own FLOPs",
        "no model: --model-flops-per-step",
        "no aten:: ops in the trace",
        -1,
        {},
        {},
        "not_pytorch"};
  }
  if (e.ops_with_shapes == 0) {
    return {
        "record shapes (torch.profiler record_shapes=True) so these kernels' ops can be priced, or pass "
        "--model-flops-per-step",
        "record shapes to judge them",
        "no op in the trace carries Input Dims",
        -1,
        {},
        {},
        "no_shapes"};
  }
  return {
      "the ops that launched these kernels have no FLOP model (see culprits); pass --model-flops-per-step "
      "for MFU",
      "ops without a FLOP model",
      fmt::format("{} ops carry shapes; these kernels' ops are not modeled", e.ops_with_shapes),
      -1,
      {},
      {},
      "ops_not_modeled"};
}

// What removes one family's exposed time, in training or in inference, when nothing names the
// collectives' role.
struct FamilyAdvice {
  std::string_view action, short_action;
};

FamilyAdvice AdviceForFamily(CommFamily family, bool training) {
  switch (family) {
    case CommFamily::kAllToAll:
      return {
          "overlap the all-to-all with independent compute or cut its volume; nothing around its launch "
          "names what it distributes (MoE tokens, embeddings): record_function ranges or "
          "with_modules=True would say",
          "overlap all-to-all"};
    case CommFamily::kAllReduce:
      if (training) {
        return {"overlap gradient all-reduce with backward (bucket sizes, bucket order)",
                "overlap comm with backward"};
      }
      return {
          "overlap the all-reduce with independent compute (asynchronous collectives), fewer and larger "
          "all-reduces",
          "overlap comm with compute"};
    case CommFamily::kGatherScatter:
      if (training) {
        return {
            "issue all-gathers ahead of their use and overlap reduce-scatter with backward (FSDP "
            "forward/backward prefetch; an optimizer's all-gather beside the next step's forward)",
            "prefetch all-gathers"};
      }
      return {"prefetch the next layer's all-gather while this one computes", "prefetch all-gathers"};
    default:
      return {"overlap communication with independent compute, fewer and larger collectives",
              "overlap comm with compute"};
  }
}

CommFamily LargestFamily(const CommRoleFigures& r) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < r.by_family_s.size(); ++i) {
    if (r.by_family_s[i] > r.by_family_s[best]) best = i;
  }
  return static_cast<CommFamily>(best);
}

// What removes one role's exposed time (docs/fixes.md, "Exposed communication by role").
FamilyAdvice AdviceForRole(CommRole role, const CommRoleFigures& r, bool training) {
  const CommFamily family = LargestFamily(r);
  switch (role) {
    case CommRole::kDataParallel:
      if (family == CommFamily::kGatherScatter) {
        return {
            "the sharded data-parallel gathers and reduce-scatters wait exposed: prefetch the next "
            "layer's all-gather (FSDP forward/backward prefetch, limit_all_gathers), overlap reduce-scatter "
            "with backward, and shard over fewer ranks (hybrid sharding) when the gathers cross nodes",
            "prefetch FSDP gathers"};
      }
      return {
          "the gradient all-reduce waits exposed after backward: overlap it with backward (DDP "
          "bucket_cap_mb, static_graph, gradient_as_bucket_view), or reduce less often (more "
          "microbatches per step with no_sync)",
          "overlap grad sync with backward"};
    case CommRole::kTensorParallel:
      return {
          "tensor-parallel collectives sit on every layer's critical path: keep the TP group inside one "
          "NVLink domain, overlap them with the GEMMs (async TP / collective matmul, Megatron "
          "tp_comm_overlap), or lower the TP degree in favour of data or pipeline parallelism",
          "overlap or shrink TP"};
    case CommRole::kEmbedding:
      return {
          "the embedding distribution (sparse features and pooled embeddings) waits exposed: pipeline it "
          "with the dense model (TorchRec TrainPipelineSparseDist runs the next batch's input "
          "all-to-all during this one), and cut its volume (the sharding plan: table-, row- or "
          "column-wise placement; fp16/int8 quantized communication)",
          "pipeline embedding all-to-all"};
    case CommRole::kMoe:
      return {
          "overlap the MoE dispatch/combine all-to-all with expert or shared-expert compute, or cut its "
          "volume (capacity factor, top-k, expert placement within a node)",
          "overlap MoE all-to-all"};
    case CommRole::kPipeline:
      return {
          "pipeline send/recv waits exposed: more microbatches per step, an interleaved 1F1B schedule, "
          "and sends overlapped with the next microbatch's compute",
          "overlap pipeline p2p"};
    case CommRole::kOptimizer:
      return {
          "the sharded optimizer's collectives (the gather of updated parameter shards, or reductions of its "
          "state) wait exposed at the step's end: overlap the parameter gather with the next step's forward "
          "(Megatron overlap_param_gather, DeepSpeed ZeRO overlap_comm), gather in bf16 rather than fp32, "
          "or shard the optimizer over fewer ranks (within a node)",
          "overlap the optimizer's gathers"};
    case CommRole::kUnknown:
    case CommRole::kCount:
      break;
  }
  return AdviceForFamily(family, training);
}

std::string RoleLabel(CommRole role) {
  switch (role) {
    case CommRole::kDataParallel:
      return "data-parallel";
    case CommRole::kTensorParallel:
      return "tensor-parallel";
    case CommRole::kEmbedding:
      return "embedding all-to-all";
    case CommRole::kMoe:
      return "MoE all-to-all";
    case CommRole::kPipeline:
      return "pipeline send/recv";
    case CommRole::kOptimizer:
      return "sharded-optimizer collectives";
    default:
      return "collectives of no named role";
  }
}

// Waiting for late peers that holds at least this share of the exposed time leads the fix:
// overlapping cannot hide a wait for a rank that has not arrived.
constexpr double kPeerWaitLeadShare = 0.5;
// A smaller wait is named after the advice: overlap hides the transfer, not the wait.
constexpr double kPeerWaitNoteShare = 0.2;

// The advice names every role holding at least kCommFamilyMinShare of the exposed time, largest
// first; the cluster's split of that time into waiting for late peers and transfer, when the job
// has it, says whether overlapping can help at all.
Advice CommunicationAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  const std::string kind = e.training()
                               ? Count(e.backward_ops, "backward ops: training", "backward op: training")
                               : std::string("no backward ops: inference");
  double wait_s = 0, transfer_s = 0;
  for (const auto& r : job.ranks) {
    wait_s += r.exposed_wait_s;
    transfer_s += r.exposed_transfer_s;
  }
  const double waited = wait_s + transfer_s > 0 ? wait_s / (wait_s + transfer_s) : 0;
  const std::string split =
      wait_s + transfer_s > 0 ? fmt::format("; across ranks, waiting for late peers {} and transfer {} of it",
                                            SecondsText(wait_s), SecondsText(transfer_s))
                              : std::string();
  const double loss_s = LossSeconds(job, Loss::kExposedCommunication);
  std::vector<Cause> causes = CommCauses(e, loss_s);
  if (causes.empty()) {
    // No collective kernel was exposed (the loss is a straggler's, or the job's ranks say nothing).
    const FamilyAdvice a =
        AdviceForFamily(e.training() ? CommFamily::kAllReduce : CommFamily::kOther, e.training());
    return {fmt::format("{}, or fix the rank that arrives late", a.action), std::string(a.short_action),
            kind + split};
  }
  std::string action, shares;
  for (const Cause& c : causes) {
    const CommRole role = CommRoleFromName(c.kind);
    shares += fmt::format("{}{} {:.0f}%", shares.empty() ? "" : ", ", c.kind, 100 * c.share);
    if (c.share < kCommFamilyMinShare && !action.empty()) continue;
    if (role == CommRole::kUnknown) {
      // Nothing names these collectives' role: the advice goes by family, each of a rule's share.
      const double total = e.comm_roles.total_s();
      for (const auto& [fs, family] : FamiliesBySize(e.comm_roles[role])) {
        const double share = fs / total;
        if (share < kCommFamilyMinShare && !action.empty()) continue;
        action += fmt::format("{}{} ({:.0f}% of it): {}", action.empty() ? "" : "; ", CommFamilyName(family),
                              100 * share, AdviceForFamily(family, e.training()).action);
      }
      continue;
    }
    action += fmt::format("{}{} ({:.0f}% of it): {}", action.empty() ? "" : "; ", RoleLabel(role),
                          100 * c.share, AdviceForRole(role, e.comm_roles[role], e.training()).action);
  }
  const CommRole lead = CommRoleFromName(causes.front().kind);
  std::string short_action(AdviceForRole(lead, e.comm_roles[lead], e.training()).short_action);
  const bool wait_leads = wait_s + transfer_s > 0 && waited >= kPeerWaitLeadShare;
  if (wait_leads) {
    action = fmt::format(
        "{:.0f}% of the exposed time is waiting for peers that arrive late, not transfer: overlapping "
        "hides only the rest; find why the late rank is late first (the straggler fix, or `plasmient "
        "explain` at its collectives). Then: {}",
        100 * waited, action);
    short_action = "fix the late rank";
  } else if (wait_s + transfer_s <= 0) {
    action += "; or fix the rank that arrives late";
  } else if (waited >= kPeerWaitNoteShare) {
    action += fmt::format(
        "; {:.0f}% of it is waiting for peers that arrive late, which only fixing the late rank "
        "removes",
        100 * waited);
  }
  Advice a{
      wait_leads ? action : fmt::format("exposed communication is {}", action), std::move(short_action),
      fmt::format("exposed collective time {:.1f} ms by role: {}; {}: {}{}; {}", e.comm_roles.total_s() * 1e3,
                  shares, causes.front().kind, causes.front().evidence, split, kind)};
  a.causes = std::move(causes);
  return a;
}

// What removes one cause of host-bound idle, quoting what the trace showed of it.
Advice HostCauseAdvice(const JobVerdict& job, HostCause cause, const Cause& seen) {
  const Evidence& e = job.evidence;
  const HostCauseFigures& c = e.host_idle[cause];
  const std::string names = CauseNames(c);
  const double window_s = job.job.wall_s;
  const std::string calls =
      c.calls > 0
          ? fmt::format("{} calls hold the host {} of the {}{}", Thousands(c.calls), SecondsText(c.call_s),
                        SecondsText(window_s), job.ranks.size() > 1 ? " of rank windows" : " window")
          : std::string();
  const std::string held = fmt::format("{:.0f}% of the host-bound idle ({})", 100 * seen.share, names);
  switch (cause) {
    case HostCause::kAllocator:
      return {
          fmt::format("the host frees and allocates device memory in the loop ({}): the caching allocator "
                      "looks disabled (PYTORCH_NO_CUDA_MEMORY_CACHING / PYTORCH_NO_HIP_MEMORY_CACHING set) "
                      "or torch.cuda.empty_cache() runs every step: keep the caching allocator on and "
                      "call empty_cache() outside the step, if at all",
                      calls.empty() ? held : calls + "; " + held),
          "keep the caching allocator on", seen.evidence, seen.seconds};
    case HostCause::kSync:
      return {
          fmt::format("the host waits for the GPU to drain, then the GPU waits for the host ({}): remove "
                      "synchronizations from the loop (.item(), .cpu(), .tolist(), printing tensors, "
                      "nonzero/masked_select and other data-dependent shapes, explicit synchronize): keep "
                      "the values on the device or read them a step later",
                      held),
          "remove host syncs", seen.evidence, seen.seconds};
    case HostCause::kBlockingCopy:
      return {
          fmt::format("copies block the host ({}): copy from pinned memory (pin_memory=True) with "
                      "non_blocking=True, and issue the next batch's copy ahead of its use (a side stream "
                      "or the DataLoader's pin_memory thread)",
                      held),
          "pinned, non_blocking copies", seen.evidence, seen.seconds};
    case HostCause::kCompile:
      return {
          fmt::format("the window is compilation and module loading ({}): a warm-up, not the steady state, "
                      "and its figures are not the run's: profile after the first iterations (a "
                      "torch.profiler schedule with wait/warmup steps), and keep compiled kernels between "
                      "runs (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR, ahead-of-time compilation)",
                      held),
          "warm-up: profile later", seen.evidence, seen.seconds};
    case HostCause::kDataLoading:
      return {fmt::format("the GPU waits for the data loader ({}): more DataLoader workers (num_workers, "
                          "persistent_workers, prefetch_factor), pin_memory=True, and decoding or "
                          "augmentation off the training process or on the GPU",
                          held),
              "faster data loading", seen.evidence, seen.seconds};
    case HostCause::kGraphCapture:
      return {fmt::format("the window holds CUDA-graph capture and instantiation ({}): a warm-up, not the "
                          "replays: profile after capture",
                          held),
              "capture: profile replays", seen.evidence, seen.seconds};
    case HostCause::kHostCollective:
      return {fmt::format("host-side collectives and barriers hold the host ({}): run collectives on device "
                          "tensors (NCCL/RCCL) and drop barriers from the step",
                          held),
              "drop host barriers", seen.evidence, seen.seconds};
    case HostCause::kProfilerOverhead:
      return {fmt::format("the profiler's own work holds the GPU idle ({}): an unprofiled run does not "
                          "have these gaps, so read the rest of the verdict without them, and profile so "
                          "that it costs less: {}",
                          held,
                          e.pytorch() ? "a shorter window (fewer active steps in torch.profiler.schedule, "
                                        "so CUPTI's buffers fill and flush less inside it), fewer "
                                        "activities, and with_stack and profile_memory off (record_shapes "
                                        "only where the FLOP models need it)"
                                      : "a shorter window (nsys --duration, or cudaProfilerStart/Stop "
                                        "around a few iterations), fewer traced APIs (nsys --trace), and "
                                        "no backtraces (--cudabacktrace=none, --sample=none)"),
              "profiler overhead: profile less", seen.evidence, seen.seconds};
    case HostCause::kLaunch: {
      const double median_us = e.median_compute_kernel_us();
      const std::string kernels =
          e.compute_kernels > 0
              ? fmt::format("{} compute kernels, median {:.0f} µs; ", Thousands(e.compute_kernels), median_us)
              : std::string();
      if (e.graph_launches > 0) {
        return {
            "the GPU idles between CUDA-graph replays while the host launches: capture more of the step in "
            "the graph and overlap the host's work between replays (sampling, scheduling)",
            "capture more, overlap host work",
            fmt::format("{}{}; {}", kernels, Count(e.graph_launches, "graph launches", "graph launch"),
                        seen.evidence),
            seen.seconds};
      }
      // A step that synchronizes with the host cannot be captured as it is: its syncs and
      // blocking copies (the window's, on the launching threads) come out first.
      const HostCauseFigures& syncs = e.host_idle[HostCause::kSync];
      const HostCauseFigures& copies = e.host_idle[HostCause::kBlockingCopy];
      const std::int64_t blockers = CaptureBlockingSyncs(job);
      if (blockers > 0) {
        std::string names = CauseNames(syncs);
        if (const std::string more = CauseNames(copies); !more.empty())
          names += (names.empty() ? "" : ", ") + more;
        return {
            fmt::format("many short kernels launched one by one: the GPU waits for the host between them; "
                        "CUDA-graph capture needs a step free of host synchronization, and this one makes "
                        "{} sync or blocking-copy calls{}: remove them first (keep values on the device "
                        "instead of .item()/.cpu(), pinned non_blocking copies, no data-dependent shapes), "
                        "then capture the step{}; or fuse the small kernels{}",
                        Thousands(blockers), names.empty() ? std::string() : " (" + names + ")",
                        e.pytorch() ? " (torch.compile mode=\"reduce-overhead\", torch.cuda.graphs)" : "",
                        e.pytorch() ? " (torch.compile)" : ""),
            "remove syncs, then CUDA graphs",
            fmt::format("{}{}; {} sync or blocking-copy calls in the window", kernels, seen.evidence,
                        Thousands(blockers)),
            seen.seconds};
      }
      return {e.pytorch()
                  ? "many short kernels launched one by one: the GPU waits for the host between them; "
                    "capture the step in CUDA graphs (torch.compile mode=\"reduce-overhead\", "
                    "torch.cuda.graphs) or fuse the small kernels (torch.compile)"
                  : "many short kernels launched one by one: the GPU waits for the host between them; "
                    "capture them in CUDA graphs or fuse them",
              "CUDA graphs or fuse tiny kernels", kernels + seen.evidence, seen.seconds};
    }
    case HostCause::kUnseenWait:
      return {fmt::format("the host blocks while no recorded GPU work runs ({}): it waits on work this trace "
                          "does not show (another process or stream outside the profile, kernels the "
                          "profiler missed, a peer): profile that work too before acting on this idle",
                          held),
              "waits on unrecorded work", seen.evidence, seen.seconds};
    case HostCause::kHostWork:
      if (e.graph_launches > 0) {
        return {
            fmt::format("the GPU idles between CUDA-graph replays while the host runs {}: overlap the "
                        "host's work with the replays (schedule the next step while this one runs) or "
                        "capture more of the step",
                        names.empty() ? std::string("its own code") : names),
            "overlap host work, capture more",
            fmt::format("{}; {}", Count(e.graph_launches, "graph launches", "graph launch"), seen.evidence),
            seen.seconds};
      }
      return {
          fmt::format("the host runs {} while the GPU waits, launching nothing: move that work out of the "
                      "step or overlap it with the GPU (prepare the next step while this one runs), and "
                      "cut per-op overhead (torch.compile, CUDA graphs)",
                      names.empty() ? std::string("its own code") : names),
          "overlap host work", seen.evidence, seen.seconds};
    case HostCause::kUnknown:
    case HostCause::kCount:
      break;
  }
  if (!e.pytorch()) {
    return {
        "no host range spans this idle, so its cause is unknown from this trace: annotate the host's "
        "phases with NVTX ranges (nvtxRangePush/Pop around I/O, communication and setup between the "
        "kernels) or sample the CPU (nsys profile --sample=cpu), then read it again",
        "cause unknown: add NVTX ranges", seen.evidence, seen.seconds};
  }
  return {
      "no host range spans this idle, so its cause is unknown from this trace: record the CPU activities "
      "(torch.profiler ProfilerActivity.CPU) with record_function ranges around data loading, scheduling "
      "and host work, then read it again",
      "cause unknown: record CPU ranges", seen.evidence, seen.seconds};
}

Advice HostAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  const double idle_s = LossSeconds(job, Loss::kHostBoundIdle);
  std::vector<Cause> causes = HostCauses(e, idle_s);
  if (causes.empty()) {
    return {e.pytorch()
                ? "keep the host ahead of the GPU: fewer, larger launches (CUDA graphs), asynchronous "
                  "data loading"
                : "fewer and larger launches, or CUDA graphs; keep the host ahead of the GPU",
            "keep the host ahead", "no idle gap was attributed"};
  }
  // The fix follows the largest cause; the others stay in the evidence with their shares.
  Advice a = HostCauseAdvice(job, HostCauseFromName(causes.front().kind), causes.front());
  std::string shares;
  for (const auto& c : causes)
    shares += fmt::format("{}{} {:.0f}%", shares.empty() ? "" : ", ", c.kind, 100 * c.share);
  a.evidence = fmt::format("host-bound idle by cause: {}; {}: {}", shares, causes.front().kind, a.evidence);
  a.causes = std::move(causes);
  return a;
}

// What removes one kind of copy's time (docs/fixes.md, "Data movement by copy kind").
Advice CopyKindAdvice(CopyKind kind, const std::string& by_kind) {
  switch (kind) {
    case CopyKind::kPageable:
      return {
          "copies to or from pageable host memory are synchronous and staged: pin the host buffers "
          "(pin_memory=True in the DataLoader, tensor.pin_memory()) and copy with non_blocking=True",
          "pin host memory", by_kind};
    case CopyKind::kPinned:
      return {
          "host↔device copies from pinned memory take the GPU's time with nothing beside them: issue "
          "them with non_blocking=True on a side stream ahead of use (prefetch the next batch) so they "
          "overlap compute, and move less (keep tensors on the device, copy once per step)",
          "overlap or cut host copies", by_kind};
    case CopyKind::kDevice:
      return {
          "device-to-device copies (.contiguous(), .clone(), torch.cat, dtype or layout changes) hold "
          "the GPU: remove the copies the ops' producers could write in place (views instead of "
          "copies, preallocated outputs, torch.compile fuses them)",
          "avoid device copies", by_kind};
    case CopyKind::kPeer:
      return {
          "peer copies between GPUs hold the GPU: use NCCL collectives (which overlap) or check the "
          "topology (P2P over PCIe rather than NVLink)",
          "collectives, not peer copies", by_kind};
    case CopyKind::kMemset:
      return {
          "memsets (zeroed buffers) hold the GPU: torch.empty rather than torch.zeros where every element "
          "is written, and optimizer.zero_grad(set_to_none=True) (the default since PyTorch 2.0)",
          "fewer memsets", by_kind};
    case CopyKind::kCount:
      break;
  }
  return {};
}

Advice DataMovementAdvice(const JobVerdict& job) {
  const Evidence& e = job.evidence;
  // The copies' time by kind leads the fix: pinning helps pageable copies only.
  double total = 0;
  std::size_t lead = 0;
  for (std::size_t i = 0; i < kCopyKindCount; ++i) {
    total += e.copy_lost_s[i];
    if (e.copy_lost_s[i] > e.copy_lost_s[lead]) lead = i;
  }
  std::string kinds;
  for (std::size_t i = 0; i < kCopyKindCount; ++i) {
    if (total <= 0 || e.copy_lost_s[i] < 0.005 * total) continue;
    kinds +=
        fmt::format("{}{} {} ({:.0f}%)", kinds.empty() ? "" : ", ", CopyKindName(static_cast<CopyKind>(i)),
                    SecondsText(e.copy_lost_s[i]), 100 * e.copy_lost_s[i] / total);
  }
  const std::string by_kind = kinds.empty() ? std::string() : "copy time by kind: " + kinds;
  if (total > 0) {
    Advice a = CopyKindAdvice(static_cast<CopyKind>(lead), by_kind);
    // A second kind holding a rule's share is named too, with its own fix.
    for (std::size_t i = 0; i < kCopyKindCount; ++i) {
      if (i == lead || e.copy_lost_s[i] < kRuleMinShareOfLoss * total) continue;
      a.action += fmt::format("; the {} copies ({:.0f}% of the copy time): {}",
                              CopyKindName(static_cast<CopyKind>(i)), 100 * e.copy_lost_s[i] / total,
                              CopyKindAdvice(static_cast<CopyKind>(i), "").short_action);
    }
    return a;
  }
  if (e.pageable_copies > 0) {
    return {
        "copies to or from pageable host memory are synchronous and slow: pin the host buffers "
        "(pin_memory=True) and copy with non_blocking=True",
        "pin host memory",
        Count(e.pageable_copies, "copies from or to pageable memory", "copy from or to pageable memory")};
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
  return FixLayer{.type = best->type,
                  .instances = best->instances,
                  .share_of_gpu_time = layers.share_of_gpu_time(*best),
                  .achieved_fraction = best->achieved_fraction(),
                  .loss_fraction = best->loss_fraction(loss),
                  .share_of_loss = best->loss_s[l] / total,
                  .top_kernel = best->top_kernels.empty() ? "" : best->top_kernels.front().first};
}

}  // namespace

void Judge(JobVerdict& job) {
  Judgement& j = job.judgement;
  j = Judgement{};
  j.coverage = job.model_coverage();
  const double unmodeled = job.job.loss(Loss::kUnmodeledKernels);
  j.achieved_at_most = std::min(1.0, job.job.achieved() + unmodeled);
  if (job.job.wall_s <= 0) {  // no GPU activity: no window to judge
    j.judgeable = false;
    j.cause = "no_gpu_activity";
    for (const RankVerdict& r : job.ranks) {
      if (!r.no_gpu_reason.empty()) {
        j.evidence = r.no_gpu_reason;
        break;
      }
    }
    if (j.evidence.empty()) j.evidence = "the inputs hold no GPU activity";
    j.reason = "no GPU activity to judge: " + j.evidence;
    j.fix = "profile with ProfilerActivity.CUDA (torch.profiler activities) on a step that runs GPU work";
    return;
  }
  // GPU-busy time: the sweep's slices with anything resident (all but the host-bound idle).
  j.gpu_busy_s =
      std::max(0.0, job.job.wall_s - job.job.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)]);
  // Too little GPU work for the shares to describe a workload: whatever else holds, the verdict
  // is of a window's edges (kJudgeMinGpuBusyS). The achieved fraction stays what the window holds,
  // said as a bound or against a stand-in's peak where the coverage or the device also fall short.
  if (j.gpu_busy_s < kJudgeMinGpuBusyS) {
    std::int64_t activities = 0;
    for (const RankVerdict& r : job.ranks) activities += r.kept_activities;
    j.judgeable = false;
    j.cause = "window_too_small";
    j.achieved_is = j.coverage && *j.coverage < kJudgeMinCoverage ? "lower_bound"
                    : job.device.unknown                          ? "assumed_device"
                                                                  : "measured";
    j.evidence = fmt::format("the window holds {} GPU {} with {} of GPU-busy time, in {} of wall time",
                             Thousands(activities), activities == 1 ? "activity" : "activities",
                             DurationText(j.gpu_busy_s), DurationText(job.job.wall_s));
    j.reason = fmt::format("too little GPU work to judge: {}, under the {} a verdict on usefulness needs",
                           j.evidence, DurationText(kJudgeMinGpuBusyS));
    j.fix = job.evidence.pytorch()
                ? "profile more of the run: several steady steps (torch.profiler.schedule(wait=1, warmup=1, "
                  "active=3), prof.step() each iteration) rather than a few kernels"
                : "profile a longer window of the run: several steady iterations (nsys --duration, or "
                  "cudaProfilerStart/Stop around them) rather than a few kernels";
    return;
  }
  // Nothing says which chip ran it: every figure of usefulness is against a stand-in's peak.
  if (job.device.unknown) {
    j.judgeable = false;
    j.cause = "unknown_device";
    j.achieved_is = "assumed_device";
    j.evidence = job.device.source;
    j.reason = fmt::format(
        "the device is unknown ({}), so its peak is: the achieved fraction, headroom and waste are "
        "against an assumed {}'s peak, and could be higher or lower",
        job.device.trace_name.empty() ? std::string("the trace names none")
                                      : "'" + job.device.trace_name + "'",
        job.device.name);
    j.fix = "name the device: --gpu KEY (plasmient peaks lists the table's devices)";
    return;
  }
  // No compute kernel: nothing is unmodeled, and no useful work is the measured answer.
  if (!j.coverage || *j.coverage >= kJudgeMinCoverage) return;
  j.judgeable = false;
  j.achieved_is = "lower_bound";
  const Advice why = UnmodeledAdvice(job);
  j.cause = std::string(why.unmodeled_cause);
  j.evidence = why.evidence;
  j.reason = fmt::format(
      "FLOP or byte models cover {:.1f}% of compute-kernel time, under the {:.0f}% a verdict on usefulness "
      "needs: {}",
      100 * *j.coverage, 100 * kJudgeMinCoverage, why.evidence);
  j.fix = why.action;
}

void Diagnose(JobVerdict& job, std::vector<Fix> more) {
  Judge(job);
  job.warm_up = DetectWarmUp(job);
  job.fixes.clear();
  // Stable: of equal shares, the losses' order, then the stragglers' own.
  auto add_more_and_sort = [&] {
    job.fixes.insert(job.fixes.end(), std::make_move_iterator(more.begin()),
                     std::make_move_iterator(more.end()));
    std::stable_sort(job.fixes.begin(), job.fixes.end(),
                     [](const Fix& a, const Fix& b) { return a.fraction > b.fraction; });
  };
  // A trace of a graph's capture ran the program's launches, not its steady state: nothing in it
  // says what the run would gain, least of all from CUDA graphs (docs/graphs.md). The stragglers'
  // fixes stand: they read the ranks' arrivals, not the steady state.
  if (job.evidence.trace_kind() == join::TraceKind::kCapture) {
    job.short_fixes.fill(std::string(kCaptureNoAdvice));
    add_more_and_sort();
    return;
  }
  for (std::size_t i = 0; i < kLossCount; ++i) {
    const auto loss = static_cast<Loss>(i);
    Advice a = AdviceFor(job, loss);
    job.short_fixes[i] = a.short_action;
    const double fraction = job.job.loss(loss);
    if (fraction < kMinFixFraction) continue;
    const double recoverable = a.recoverable_s >= 0 && job.job.wall_s > 0
                                   ? std::min(fraction, a.recoverable_s / job.job.wall_s)
                                   : fraction;
    Fix f{loss,
          fraction,
          std::move(a.action),
          {},
          std::move(a.evidence),
          recoverable,
          LayerOf(job.layers, loss),
          std::move(a.causes)};
    for (const auto& k : job.top_kernels) {
      if (k.loss != loss || f.culprits.size() >= 3) continue;
      const KernelClass c = KernelClassOf(k.name, k.op, k.flops > 0 && roofline::IsHeavyKernelName(k.name));
      if (a.classes.empty() || std::find(a.classes.begin(), a.classes.end(), c) != a.classes.end())
        f.culprits.push_back(k.name);
    }
    job.fixes.push_back(std::move(f));
  }
  add_more_and_sort();
}

std::int64_t CaptureBlockingSyncs(const JobVerdict& job) {
  std::int64_t steps = 0;
  for (const RankVerdict& r : job.ranks) steps += static_cast<std::int64_t>(r.steps.size());
  const std::int64_t calls = job.evidence.host_idle.SyncCalls();
  return calls > std::max<std::int64_t>(steps, 1) ? calls : 0;
}

}  // namespace plasmient::diagnose
