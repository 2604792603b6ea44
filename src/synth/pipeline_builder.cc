// One pipeline stage per rank, 1F1B schedule (warm-up forwards, steady one-forward-
// one-backward, cool-down backwards). Receives are posted ahead on their own streams
// and spin until the neighbour's send arrives; the stage's next kernel waits for them.
#include <algorithm>

#include <fmt/format.h>

#include "synth/program_builder.h"

namespace plasmient::synth {
namespace {

// P2P channels: group 1 + 2i carries activations i -> i+1, group 2 + 2i gradients i+1 -> i.
std::uint32_t ForwardChannel(int from_stage) { return 1 + 2 * static_cast<std::uint32_t>(from_stage); }
std::uint32_t BackwardChannel(int to_stage) { return 2 + 2 * static_cast<std::uint32_t>(to_stage); }

struct StageLayers {
  int first = 0;
  int count = 0;
};

StageLayers LayersOf(const SynthConfig& c, int stage) {
  const int base = c.layers / c.ranks;
  const int extra = c.layers % c.ranks;
  StageLayers s;
  s.count = base + (stage < extra ? 1 : 0);
  s.first = stage * base + std::min(stage, extra);
  return s;
}

}  // namespace

void BuildPipeline(ProgramBuilder& b, int step_index) {
  const SynthConfig& c = b.config();
  const int stage = b.rank();
  const int stages = c.ranks;
  const int micro = c.microbatches;
  const std::int64_t activation = static_cast<std::int64_t>(c.micro_batch) * c.seq_len * c.hidden;
  const StageLayers layers = LayersOf(c, stage);
  const bool first = stage == 0;
  const bool last = stage == stages - 1;

  auto forward = [&](int mb) {
    if (!first) b.P2p(OpKind::kRecv, ForwardChannel(stage - 1), stage - 1, activation, kRecvPrevStream);
    for (int l = layers.first; l < layers.first + layers.count; ++l) {
      b.BlockForward(l, c.micro_batch, c.seq_len, c.seq_len, false);
    }
    if (!last) b.P2p(OpKind::kSend, ForwardChannel(stage), stage + 1, activation, kSendNextStream);
    (void)mb;
  };
  auto backward = [&](int mb) {
    if (!last) b.P2p(OpKind::kRecv, BackwardChannel(stage), stage + 1, activation, kRecvNextStream);
    for (int l = layers.first + layers.count - 1; l >= layers.first; --l) {
      b.BlockBackward(l, c.micro_batch, c.seq_len);
    }
    if (!first) b.P2p(OpKind::kSend, BackwardChannel(stage - 1), stage - 1, activation, kSendPrevStream);
    (void)mb;
  };

  const int warmup = std::min(stages - stage - 1, micro);
  for (int mb = 0; mb < warmup; ++mb) forward(mb);
  for (int k = 0; k < micro - warmup; ++k) {
    forward(warmup + k);
    backward(k);
  }
  for (int mb = micro - warmup; mb < micro; ++mb) backward(mb);

  const std::int64_t params = static_cast<std::int64_t>(layers.count) * 12 * c.hidden * c.hidden;
  b.Pointwise(OpKind::kAdamUpdate, params, 1, b.Module("Optimizer.step#AdamW.step"), nullptr, Dtype::kFp32);
  b.Plain(OpKind::kSync);
  (void)step_index;
}

}  // namespace plasmient::synth
