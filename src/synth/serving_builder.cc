// Decode serving (one ProfilerStep per generated token) and a host-bound training loop.
#include <algorithm>

#include <fmt/format.h>

#include "synth/program_builder.h"

namespace plasmient::synth {

void BuildDecode(ProgramBuilder& b, int step_index) {
  const SynthConfig& c = b.config();
  const std::int64_t h = c.hidden;
  const std::int64_t batch = c.batch;
  const std::int64_t kv_len = static_cast<std::int64_t>(c.context) + step_index;
  b.SetCpuRange(5, 9);
  for (int layer = 0; layer < c.layers; ++layer) {
    const std::int16_t block = b.Module(fmt::format("nn.Module: Block_{}", layer));
    const std::int16_t attention = b.Module(fmt::format("nn.Module: SelfAttention_{}", layer), block);
    b.Pointwise(OpKind::kLayerNorm, batch, h,
                b.Module(fmt::format("nn.Module: LayerNorm_{}", 2 * layer), block));
    b.Linear(batch, 3 * h, h, b.Module(fmt::format("nn.Module: Linear_{}", 4 * layer), attention));
    b.Pointwise(OpKind::kCopy, batch, 2 * h, attention);  // append this token's k, v to the cache
    b.Sdpa(false, batch, c.heads, 1, kv_len, h / c.heads, false, attention);
    b.Linear(batch, h, h, b.Module(fmt::format("nn.Module: Linear_{}", 4 * layer + 1), attention));
    b.Pointwise(OpKind::kAdd, batch, h, block);
    b.Pointwise(OpKind::kLayerNorm, batch, h,
                b.Module(fmt::format("nn.Module: LayerNorm_{}", 2 * layer + 1), block));
    const std::int16_t mlp = b.Module(fmt::format("nn.Module: MLP_{}", layer), block);
    b.Linear(batch, 4 * h, h, b.Module(fmt::format("nn.Module: Linear_{}", 4 * layer + 2), mlp));
    b.Pointwise(OpKind::kGelu, batch, 4 * h, b.Module(fmt::format("nn.Module: GELU_{}", layer), mlp));
    b.Linear(batch, h, 4 * h, b.Module(fmt::format("nn.Module: Linear_{}", 4 * layer + 3), mlp));
    b.Pointwise(OpKind::kAdd, batch, h, block);
  }
  b.Pointwise(OpKind::kLayerNorm, batch, h, b.Module(fmt::format("nn.Module: LayerNorm_{}", 2 * c.layers)));
  b.Linear(batch, c.vocab, h, b.Module(fmt::format("nn.Module: Linear_{}", 4 * c.layers)));
  b.Pointwise(OpKind::kArgmax, batch, c.vocab, -1);
  b.Copy(OpKind::kMemcpyD2H, batch * 8);  // next tokens to the host
  b.Plain(OpKind::kSync);
  b.Plain(OpKind::kHostStall, static_cast<TimeNs>(b.rng().Uniform(60, 140) * 1e3));  // scheduler
}

void BuildHostbound(ProgramBuilder& b, int step_index) {
  const SynthConfig& c = b.config();
  const std::int64_t batch = 64;
  const std::int64_t width = std::min<std::int64_t>(c.hidden, 1024);
  // A data loader that cannot keep up: the GPU idles while the host decodes a batch.
  b.Plain(OpKind::kHostStall, static_cast<TimeNs>(b.rng().Uniform(3, 8) * 1e6));
  b.Copy(OpKind::kMemcpyH2D, batch * 3 * 224 * 224 * 4);
  b.SetCpuRange(25, 45);  // eager Python between tiny ops
  for (int i = 0; i < 120; ++i) {
    switch (i % 6) {
      case 0:
        b.Linear(batch, width, width, b.Module(fmt::format("nn.Module: Linear_{}", i / 6)));
        break;
      case 1:
        b.Pointwise(OpKind::kAdd, batch, width, -1);
        break;
      case 2:
        b.Pointwise(OpKind::kGelu, batch, width, -1);
        break;
      case 3:
        b.Pointwise(OpKind::kLayerNorm, batch, width, -1);
        break;
      case 4:
        b.Plain(OpKind::kTritonNoOp, static_cast<TimeNs>(b.rng().Uniform(2, 6) * 1e3));
        break;
      default:
        b.Pointwise(OpKind::kAdd, batch, width, -1);
        break;
    }
  }
  b.SetCpuRange(6, 12);
  b.Copy(OpKind::kMemcpyD2H, 4);
  b.Plain(OpKind::kSync);
  (void)step_index;
}

// Host-bound idle whose causes are known: the caching allocator off (cudaFree and cudaMalloc
// between the ops), a data loader, stalls no host range records (unknown), and a compile range
// that runs while the GPU is busy (a distractor: it holds no idle and must not be blamed).
void BuildHostCauses(ProgramBuilder& b, int step_index) {
  const SynthConfig& c = b.config();
  const std::int64_t tokens = 2048;
  const std::int64_t width = std::min<std::int64_t>(c.hidden, 2048);
  auto stall = [&](TimeNs ns, const char* call, bool api, const char* cause) {
    Item& s = b.Plain(OpKind::kHostStall, ns);
    s.host_call = call;
    s.host_call_api = api;
    s.cause = cause;
  };
  stall(static_cast<TimeNs>(b.rng().Uniform(1.5, 2.5) * 1e6), nullptr, false, nullptr);  // the data loader
  b.Copy(OpKind::kMemcpyH2D, tokens * width * 2);
  // A long GEMM first, then the distractor while it runs.
  b.Linear(4 * tokens, 4 * width, width, b.Module("nn.Module: Linear_0"));
  stall(static_cast<TimeNs>(b.rng().Uniform(60, 120) * 1e3), "compileFusion", false, "compile");
  for (int i = 0; i < 16; ++i) {
    b.Linear(tokens, width, width, b.Module(fmt::format("nn.Module: Linear_{}", i + 1)));
    b.Pointwise(OpKind::kGelu, tokens, width, -1);
    stall(static_cast<TimeNs>(b.rng().Uniform(150, 400) * 1e3), "cudaFree", true, "allocator");
    stall(static_cast<TimeNs>(b.rng().Uniform(40, 90) * 1e3), "cudaMalloc", true, "allocator");
    if (i % 4 == 3) stall(static_cast<TimeNs>(b.rng().Uniform(200, 400) * 1e3), "", false, "unknown");
  }
  b.Copy(OpKind::kMemcpyD2H, 4);
  (void)step_index;
}

}  // namespace plasmient::synth
