// Data-parallel training (ddp, straggler, clock-offset) and mixture-of-experts steps.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "synth/program_builder.h"

namespace plasmient::synth {
namespace {

constexpr const char* kAccumulateGrad = "torch::autograd::AccumulateGrad";

std::int64_t LayerParams(std::int64_t hidden) { return 12 * hidden * hidden + 13 * hidden; }

void DataLoad(ProgramBuilder& b, std::int64_t tokens) {
  b.Plain(OpKind::kHostStall, static_cast<TimeNs>(b.rng().Uniform(120, 320) * 1e3));  // next(DataLoader)
  b.Copy(OpKind::kMemcpyH2D, tokens * 8);                                             // token ids, int64
}

void Optimizer(ProgramBuilder& b, const std::vector<std::int64_t>& bucket_params) {
  const std::int16_t module = b.Module("Optimizer.step#AdamW.step");
  for (std::int64_t params : bucket_params) {
    b.Pointwise(OpKind::kAdamUpdate, params, 1, module, nullptr, Dtype::kFp32);
  }
  const std::int16_t zero = b.Module("Optimizer.zero_grad#AdamW.zero_grad");
  for (std::int64_t params : bucket_params) b.Copy(OpKind::kMemsetZero, params * 2).module = zero;
}

void EndOfStep(ProgramBuilder& b) {
  b.Copy(OpKind::kMemcpyD2H, 4);  // loss.item()
  b.Plain(OpKind::kSync);
}

}  // namespace

void BuildTraining(ProgramBuilder& b, int step_index) {
  const SynthConfig& c = b.config();
  const std::int64_t h = c.hidden;
  const std::int64_t m = static_cast<std::int64_t>(c.micro_batch) * c.seq_len;
  DataLoad(b, m);
  for (int layer = 0; layer < c.layers; ++layer) {
    b.BlockForward(layer, c.micro_batch, c.seq_len, c.seq_len, layer == 0);
  }
  b.Pointwise(OpKind::kLayerNorm, m, h, b.Module(fmt::format("nn.Module: LayerNorm_{}", 2 * c.layers)));
  const auto head = ProgramBuilder::Ref(
      b.Linear(m, c.vocab, h, b.Module(fmt::format("nn.Module: Linear_{}", 4 * c.layers))));
  b.Pointwise(OpKind::kLogSoftmax, m, c.vocab, -1);
  // Backward: lm_head, then blocks in reverse; a bucket's all-reduce is issued as soon as
  // its last gradient is produced and overlaps the remaining backward.
  ProgramBuilder::Differentiates(b.Mm(m, h, c.vocab, "AddmmBackward0"), head);
  ProgramBuilder::Differentiates(b.Mm(c.vocab, h, m, "AddmmBackward0"), head);
  const int buckets = std::min(c.buckets, c.layers);
  const int per_bucket = (c.layers + buckets - 1) / buckets;
  std::vector<std::int64_t> bucket_params;
  std::int64_t pending = c.vocab * h + 2 * h;
  for (int layer = c.layers - 1; layer >= 0; --layer) {
    b.BlockBackward(layer, c.micro_batch, c.seq_len);
    pending += LayerParams(h);
    const bool bucket_full = (c.layers - layer) % per_bucket == 0;
    if (bucket_full || layer == 0) {
      // DDP's reducer launches a bucket's all-reduce from its hook on the autograd thread, inside
      // the AccumulateGrad node of the bucket's last gradient, as in real traces.
      b.Collective(OpKind::kAllReduce, pending, c.ranks, false).autograd_fn = kAccumulateGrad;
      bucket_params.push_back(pending);
      pending = 0;
    }
  }
  b.Plain(OpKind::kWaitComm);
  Optimizer(b, bucket_params);
  EndOfStep(b);
  (void)step_index;
}

void BuildMoe(ProgramBuilder& b, int step_index) {
  const SynthConfig& c = b.config();
  const std::int64_t h = c.hidden;
  const std::int64_t m = static_cast<std::int64_t>(c.micro_batch) * c.seq_len;
  const int local_experts = std::max(1, c.experts / c.ranks);
  const std::int64_t routed = m * 2;  // top-2 routing: elements sent = routed tokens x h
  DataLoad(b, m);
  std::vector<std::vector<std::int64_t>> expert_tokens(c.layers);
  for (int layer = 0; layer < c.layers; ++layer) {
    // Attention half of the block.
    const std::int16_t block = b.Module(fmt::format("nn.Module: MoEBlock_{}", layer));
    const std::int16_t attention = b.Module(fmt::format("nn.Module: SelfAttention_{}", layer), block);
    b.Pointwise(OpKind::kLayerNorm, m, h, b.Module(fmt::format("nn.Module: LayerNorm_{}", 2 * layer), block));
    b.Linear(m, 3 * h, h, b.Module(fmt::format("nn.Module: Linear_{}", 2 * layer), attention));
    b.Sdpa(false, c.micro_batch, c.heads, c.seq_len, c.seq_len, h / c.heads, true, attention);
    b.Linear(m, h, h, b.Module(fmt::format("nn.Module: Linear_{}", 2 * layer + 1), attention));
    b.Pointwise(OpKind::kAdd, m, h, block);
    // Router, dispatch, experts, combine.
    const std::int16_t moe = b.Module(fmt::format("nn.Module: MoELayer_{}", layer), block);
    b.Pointwise(OpKind::kLayerNorm, m, h, moe);
    b.Linear(m, c.experts, h, moe);
    b.Pointwise(OpKind::kSoftmax, m, c.experts, moe);
    b.Pointwise(OpKind::kTopk, m, c.experts, moe);
    b.Collective(OpKind::kAllToAll, routed * h / c.ranks, c.ranks, true).module = moe;
    for (int e = 0; e < local_experts; ++e) {
      const double fraction = c.expert_token_fraction * b.rng().Uniform(0.5, 1.5);
      const std::int64_t tokens = std::max<std::int64_t>(16, std::llround(m * fraction));
      expert_tokens[layer].push_back(tokens);
      const std::int16_t expert =
          b.Module(fmt::format("nn.Module: Expert_{}", layer * local_experts + e), moe);
      b.Linear(tokens, 4 * h, h, expert);
      b.Pointwise(OpKind::kGelu, tokens, 4 * h, expert);
      b.Linear(tokens, h, 4 * h, expert);
    }
    b.Collective(OpKind::kAllToAll, routed * h / c.ranks, c.ranks, true).module = moe;
    b.Pointwise(OpKind::kAdd, m, h, block);
  }
  b.Pointwise(OpKind::kLogSoftmax, m, h, -1);
  for (int layer = c.layers - 1; layer >= 0; --layer) {
    b.Collective(OpKind::kAllToAll, routed * h / c.ranks, c.ranks, true);
    for (std::int64_t tokens : expert_tokens[layer]) {
      b.Mm(tokens, 4 * h, h, "AddmmBackward0");
      b.Mm(h, 4 * h, tokens, "AddmmBackward0");
      b.Pointwise(OpKind::kGeluBwd, tokens, 4 * h, -1, "GeluBackward0");
      b.Mm(tokens, h, 4 * h, "AddmmBackward0");
      b.Mm(4 * h, h, tokens, "AddmmBackward0");
    }
    b.Collective(OpKind::kAllToAll, routed * h / c.ranks, c.ranks, true);
    b.Mm(m, h, c.experts, "AddmmBackward0");
    b.Pointwise(OpKind::kLayerNormBwd, m, h, -1, "NativeLayerNormBackward0");
    b.Mm(m, h, h, "AddmmBackward0");
    b.Mm(h, h, m, "AddmmBackward0");
    b.Sdpa(true, c.micro_batch, c.heads, c.seq_len, c.seq_len, h / c.heads, true, -1);
    b.Mm(m, h, 3 * h, "AddmmBackward0");
    b.Mm(3 * h, h, m, "AddmmBackward0");
    b.Pointwise(OpKind::kLayerNormBwd, m, h, -1, "NativeLayerNormBackward0");
  }
  // Dense (non-expert) gradients are data-parallel.
  const std::int64_t dense = static_cast<std::int64_t>(c.layers) * (4 * h * h + h * c.experts);
  b.Collective(OpKind::kAllReduce, dense, c.ranks, false).autograd_fn = kAccumulateGrad;
  b.Plain(OpKind::kWaitComm);
  std::vector<std::int64_t> params = {dense, static_cast<std::int64_t>(c.layers) * local_experts * 8 * h * h};
  Optimizer(b, params);
  EndOfStep(b);
  (void)step_index;
}

}  // namespace plasmient::synth
