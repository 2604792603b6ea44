#include "synth/program_builder.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace plasmient::synth {

std::uint64_t Rng::Next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::Uniform(double lo, double hi) {
  const double unit = static_cast<double>(Next() >> 11) * 0x1.0p-53;
  return lo + (hi - lo) * unit;
}

std::uint64_t MixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  Rng rng(seed ^ 0x5bd1e9955bd1e995ULL);
  std::uint64_t h = rng.Next();
  for (std::uint64_t v : {a, b, c}) {
    Rng mix(h ^ (v * 0x9e3779b97f4a7c15ULL));
    h = mix.Next();
  }
  return h;
}

int StragglerRank(const SynthConfig& config) {
  if (config.scenario != Scenario::kStraggler && config.scenario != Scenario::kLateStart) return -1;
  return config.straggler_rank >= 0 ? config.straggler_rank : config.ranks - 1;
}

ProgramBuilder::ProgramBuilder(const SynthConfig& config, const GpuSpec& gpu, int rank, int step_index)
    : config_(config),
      gpu_(gpu),
      rank_(rank),
      rng_(
          MixSeed(config.seed, static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(step_index), 1)) {
  program_.step = config.first_step_number + step_index;
  // Autograd sequence numbers grow across steps like a real run's.
  sequence_number_ = static_cast<std::int64_t>(step_index) * 100000;
}

std::int16_t ProgramBuilder::Module(std::string name, std::int16_t parent) {
  program_.modules.push_back(std::move(name));
  program_.module_parent.push_back(parent);
  return static_cast<std::int16_t>(program_.modules.size() - 1);
}

// A forward op takes the next autograd sequence number; a backward op, unless told which forward
// op it differentiates, the latest forward op's (and so that op's module).
void ProgramBuilder::Sequence(Item& item, bool backward) {
  if (backward) {
    item.sequence_number = sequence_number_ - 1;
    item.forward_module = last_forward_module_;
  } else {
    item.sequence_number = sequence_number_++;
    last_forward_module_ = item.module;
  }
}

Item& ProgramBuilder::Push(OpKind kind) {
  Item& item = program_.items.emplace_back();
  item.kind = kind;
  item.cpu_ns = CpuNs();
  return item;
}

TimeNs ProgramBuilder::CpuNs() { return static_cast<TimeNs>(rng_.Uniform(cpu_lo_us_, cpu_hi_us_) * 1e3); }

// Never faster than the peak allows: compute_eff and the memory efficiency are <= 1,
// and the slowdown is >= 1.
TimeNs ProgramBuilder::KernelNs(double flops, double bytes, double compute_eff) {
  const double memory_eff = rng_.Uniform(0.62, 0.85);
  const double compute_s = flops / (gpu_.bf16_flops_per_s * compute_eff);
  const double memory_s = bytes / (gpu_.mem_bytes_per_s * memory_eff);
  const double seconds = std::max(compute_s, memory_s) * slowdown_ + 2.0e-6;
  return static_cast<TimeNs>(std::ceil(SecondsToNs(seconds)));
}

// 2·M·N·K FLOPs; bytes of A[M,K], B[K,N], the output [M,N] and a bias of bias_elems.
Item& ProgramBuilder::Gemm(OpKind kind, std::int64_t m, std::int64_t n, std::int64_t k,
                           std::int64_t bias_elems) {
  Item& item = Push(kind);
  item.d[0] = m;
  item.d[1] = n;
  item.d[2] = k;
  item.flops = 2.0 * static_cast<double>(m) * n * k;
  item.bytes = 2.0 * (static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n +
                      static_cast<double>(bias_elems));
  item.flop_model = item.byte_model = true;
  const double eff = std::min(m, n) < 256 ? rng_.Uniform(0.25, 0.45) : rng_.Uniform(0.55, 0.78);
  item.gpu_ns = KernelNs(item.flops, item.bytes, eff);
  return item;
}

Item& ProgramBuilder::Linear(std::int64_t m, std::int64_t n, std::int64_t k, std::int16_t module) {
  Item& item = Gemm(OpKind::kLinear, m, n, k, n);
  item.module = module;
  item.cpu_ns += 6'000;  // aten::linear > aten::t + aten::addmm
  Sequence(item, false);
  return item;
}

Item& ProgramBuilder::Mm(std::int64_t m, std::int64_t n, std::int64_t k, const char* autograd_fn) {
  Item& item = Gemm(OpKind::kMm, m, n, k, 0);
  item.autograd_fn = autograd_fn;
  Sequence(item, true);
  return item;
}

Item& ProgramBuilder::Sdpa(bool backward, std::int64_t b, std::int64_t h, std::int64_t lq, std::int64_t lk,
                           std::int64_t d, bool causal, std::int16_t module) {
  Item& item = Push(backward ? OpKind::kSdpaBwd : OpKind::kSdpaFwd);
  item.module = module;
  item.causal = causal;
  item.d[0] = b;
  item.d[1] = h;
  item.d[2] = lq;
  item.d[3] = lk;
  item.d[4] = d;
  double forward = 2.0 * b * h * static_cast<double>(lq) * lk * (2.0 * d);
  if (causal && lq == lk) forward *= 0.5;
  item.flops = backward ? 2.5 * forward : forward;
  // q, k, v and the output (backward: also grad_out and the three gradients).
  const double tensors = 2.0 * b * h * d * (2.0 * lq + 2.0 * lk);
  item.bytes = backward ? 2.0 * tensors : tensors;
  item.flop_model = item.byte_model = true;
  const double eff = backward ? rng_.Uniform(0.35, 0.5) : rng_.Uniform(0.45, 0.65);
  item.gpu_ns = KernelNs(item.flops, item.bytes, eff);
  if (backward) {
    item.autograd_fn = "ScaledDotProductFlashAttentionBackward0";
    Sequence(item, true);
  } else {
    Sequence(item, false);
  }
  return item;
}

Item& ProgramBuilder::Pointwise(OpKind kind, std::int64_t m, std::int64_t n, std::int16_t module,
                                const char* autograd_fn, Dtype dtype) {
  Item& item = Push(kind);
  item.module = module;
  item.autograd_fn = autograd_fn;
  item.dtype = dtype;
  item.d[0] = m;
  item.d[1] = n;
  if (kind == OpKind::kTopk) item.d[2] = 2;
  double tensors = 2;  // input and output
  switch (kind) {
    case OpKind::kAdd:
    case OpKind::kLayerNormBwd:
    case OpKind::kGeluBwd:
    case OpKind::kAdamUpdate:
      tensors = 3;
      break;
    case OpKind::kArgmax:
      tensors = 1;
      break;
    default:
      break;
  }
  item.bytes = tensors * static_cast<double>(m) * n * DtypeBytes(dtype);
  item.byte_model = true;
  item.gpu_ns = KernelNs(0, item.bytes, 1.0);
  Sequence(item, autograd_fn != nullptr);
  return item;
}

Item& ProgramBuilder::Unmodeled(OpKind kind, TimeNs gpu_ns, std::int16_t module) {
  Item& item = Push(kind);
  item.module = module;
  item.gpu_ns = static_cast<TimeNs>(static_cast<double>(gpu_ns) * slowdown_);
  return item;
}

Item& ProgramBuilder::Copy(OpKind kind, std::int64_t bytes) {
  Item& item = Push(kind);
  item.d[0] = bytes;
  const double bytes_per_s = kind == OpKind::kMemsetZero ? gpu_.mem_bytes_per_s * 0.7 : 22e9;
  item.gpu_ns = static_cast<TimeNs>(std::ceil(SecondsToNs(static_cast<double>(bytes) / bytes_per_s))) + 1'500;
  return item;
}

Item& ProgramBuilder::Collective(OpKind kind, std::int64_t nelems, int world, bool gates_compute) {
  Item& item = Push(kind);
  item.stream = kCollectiveStream;
  item.group = 0;
  item.group_size = world;
  item.nelems = nelems;
  item.gates_compute = gates_compute;
  const std::int64_t bytes = nelems * 2;
  item.gpu_ns = kind == OpKind::kAllToAll ? AllToAllNs(bytes, world) : AllReduceNs(bytes, world);
  item.cpu_ns += 15'000;  // record_param_comms > nccl:* bookkeeping
  return item;
}

Item& ProgramBuilder::P2p(OpKind kind, std::uint32_t group, int peer, std::int64_t nelems,
                          std::uint8_t stream) {
  Item& item = Push(kind);
  item.stream = stream;
  item.group = group;
  item.group_size = 2;
  item.peer = peer;
  item.nelems = nelems;
  item.gates_compute = kind == OpKind::kRecv;
  item.gpu_ns = P2pNs(nelems * 2);
  item.cpu_ns += 10'000;
  return item;
}

Item& ProgramBuilder::Plain(OpKind kind, TimeNs gpu_ns) {
  Item& item = Push(kind);
  item.gpu_ns = gpu_ns;
  return item;
}

// A block as Hugging Face models nest it: Block > (LayerNorm, SelfAttention > Linear ×2,
// LayerNorm, MLP > (Linear, GELU, Linear)); the residual adds run in the block itself.
void ProgramBuilder::BlockForward(int layer, std::int64_t batch, std::int64_t seq, std::int64_t kv_len,
                                  bool with_unmodeled) {
  const std::int64_t h = config_.hidden;
  const std::int64_t m = batch * seq;
  const std::int64_t head_dim = h / config_.heads;
  const std::int16_t block = Module(fmt::format("nn.Module: Block_{}", layer));
  const std::int16_t attention = Module(fmt::format("nn.Module: SelfAttention_{}", layer), block);
  if (blocks_.size() <= static_cast<std::size_t>(layer)) blocks_.resize(static_cast<std::size_t>(layer) + 1);
  BlockRecord& r = blocks_[static_cast<std::size_t>(layer)];
  r.ln1 = Ref(
      Pointwise(OpKind::kLayerNorm, m, h, Module(fmt::format("nn.Module: LayerNorm_{}", 2 * layer), block)));
  r.qkv = Ref(Linear(m, 3 * h, h, Module(fmt::format("nn.Module: Linear_{}", 4 * layer), attention)));
  if (with_unmodeled) {
    // A fused rotary-embedding extension op: custom kernel, no shapes recorded.
    Unmodeled(OpKind::kCustomUnmodeled,
              static_cast<TimeNs>(static_cast<double>(m) * h * 4 / gpu_.mem_bytes_per_s * 1.6e9) + 3'000,
              attention);
  }
  r.attention = Ref(Sdpa(false, batch, config_.heads, seq, kv_len, head_dim, seq == kv_len, attention));
  r.proj = Ref(Linear(m, h, h, Module(fmt::format("nn.Module: Linear_{}", 4 * layer + 1), attention)));
  Pointwise(OpKind::kAdd, m, h, block);
  r.ln2 = Ref(Pointwise(OpKind::kLayerNorm, m, h,
                        Module(fmt::format("nn.Module: LayerNorm_{}", 2 * layer + 1), block)));
  const std::int16_t mlp = Module(fmt::format("nn.Module: MLP_{}", layer), block);
  r.fc1 = Ref(Linear(m, 4 * h, h, Module(fmt::format("nn.Module: Linear_{}", 4 * layer + 2), mlp)));
  r.gelu = Ref(Pointwise(OpKind::kGelu, m, 4 * h, Module(fmt::format("nn.Module: GELU_{}", layer), mlp)));
  r.fc2 = Ref(Linear(m, h, 4 * h, Module(fmt::format("nn.Module: Linear_{}", 4 * layer + 3), mlp)));
  Pointwise(OpKind::kAdd, m, h, block);
}

// A backward op carries the sequence number of the forward op whose autograd node it runs.
Item& ProgramBuilder::Differentiates(Item& backward, const ForwardRef& forward) {
  backward.sequence_number = forward.sequence_number;
  backward.forward_module = forward.module;
  return backward;
}

void ProgramBuilder::BlockBackward(int layer, std::int64_t batch, std::int64_t seq) {
  const std::int64_t h = config_.hidden;
  const std::int64_t m = batch * seq;
  const BlockRecord r = static_cast<std::size_t>(layer) < blocks_.size()
                            ? blocks_[static_cast<std::size_t>(layer)]
                            : BlockRecord{};
  // fc2: dX = dY[m,h] . W[h,4h]; dW = dY^T[h,m] . X[m,4h]
  Differentiates(Mm(m, 4 * h, h, "AddmmBackward0"), r.fc2);
  Differentiates(Mm(h, 4 * h, m, "AddmmBackward0"), r.fc2);
  Differentiates(Pointwise(OpKind::kGeluBwd, m, 4 * h, -1, "GeluBackward0"), r.gelu);
  Differentiates(Mm(m, h, 4 * h, "AddmmBackward0"), r.fc1);
  Differentiates(Mm(4 * h, h, m, "AddmmBackward0"), r.fc1);
  Differentiates(Pointwise(OpKind::kLayerNormBwd, m, h, -1, "NativeLayerNormBackward0"), r.ln2);
  Differentiates(Mm(m, h, h, "AddmmBackward0"), r.proj);
  Differentiates(Mm(h, h, m, "AddmmBackward0"), r.proj);
  Differentiates(Sdpa(true, batch, config_.heads, seq, seq, h / config_.heads, true, -1), r.attention);
  Differentiates(Mm(m, h, 3 * h, "AddmmBackward0"), r.qkv);
  Differentiates(Mm(3 * h, h, m, "AddmmBackward0"), r.qkv);
  Differentiates(Pointwise(OpKind::kLayerNormBwd, m, h, -1, "NativeLayerNormBackward0"), r.ln1);
}

TimeNs AllReduceNs(std::int64_t bytes, int world) {
  if (world <= 1) return 8'000;
  const double bus_bytes_per_s = world <= 8 ? 170e9 : 42e9;
  const double algo = 2.0 * (world - 1) / world * static_cast<double>(bytes) / bus_bytes_per_s;
  return static_cast<TimeNs>(SecondsToNs(algo)) + 12'000 + 1'500 * static_cast<TimeNs>(std::log2(world));
}

TimeNs AllToAllNs(std::int64_t bytes, int world) {
  if (world <= 1) return 6'000;
  const double bus_bytes_per_s = world <= 8 ? 150e9 : 38e9;
  const double algo = static_cast<double>(world - 1) / world * static_cast<double>(bytes) / bus_bytes_per_s;
  return static_cast<TimeNs>(SecondsToNs(algo)) + 10'000;
}

TimeNs P2pNs(std::int64_t bytes) {
  return static_cast<TimeNs>(SecondsToNs(static_cast<double>(bytes) / 160e9)) + 8'000;
}

namespace {

// ddp-exposed: the same step with every gradient all-reduce moved after the backward pass, just
// before the wait for communication. The items (and so every random draw) are ddp's; only the
// order changes, so the two scenarios differ by the overlap alone.
void ExposeAllReduces(Program& p) {
  auto wait =
      std::find_if(p.items.begin(), p.items.end(), [](const Item& i) { return i.kind == OpKind::kWaitComm; });
  std::stable_partition(p.items.begin(), wait, [](const Item& i) { return i.kind != OpKind::kAllReduce; });
}

// A warm-up step: each GPU activity's launch is preceded by its module's load (the driver loads
// modules lazily, at a kernel's first launch), while the GPU idles; the very first activity of the
// run keeps its place, so the window starts where it did.
void LoadModulesAsLaunched(Program& p, Rng& rng, bool first_step) {
  std::vector<Item> out;
  out.reserve(p.items.size() * 2);
  bool first = first_step;
  for (Item& item : p.items) {
    if (HasGpuActivity(item.kind) && !std::exchange(first, false)) {
      Item load;
      load.kind = OpKind::kHostStall;
      load.gpu_ns = static_cast<TimeNs>(std::max<double>(200e3, static_cast<double>(item.gpu_ns)) *
                                        rng.Uniform(0.8, 1.2));
      load.host_call = "cuModuleLoadData";
      load.host_call_api = true;
      load.cause = "compile";
      out.push_back(load);
    }
    out.push_back(item);
  }
  p.items = std::move(out);
}

// The --host-stall stalls, once in the step, spread over it: the k-th of m before the GPU
// activity k+1 (m+1)-ths of the way through the step's, each inside its cause's host range.
void AddHostStalls(Program& p, Rng& rng, std::span<const HostStallSpec> stalls) {
  std::vector<std::size_t> launches;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    if (HasGpuActivity(p.items[i].kind)) launches.push_back(i);
  }
  if (launches.empty() || stalls.empty()) return;
  std::vector<std::pair<std::size_t, Item>> at;
  for (std::size_t k = 0; k < stalls.size(); ++k) {
    const HostStallKind* kind = FindHostStallKind(stalls[k].cause);  // Validate checked it
    Item s;
    s.kind = OpKind::kHostStall;
    s.gpu_ns = static_cast<TimeNs>(stalls[k].ms * 1e6 * rng.Uniform(0.8, 1.2));
    s.host_call = kind->call;
    s.host_call_api = kind->api;
    s.host_call_overhead = kind->overhead;
    s.cause = kind->cause.data();
    at.emplace_back(launches[(k + 1) * launches.size() / (stalls.size() + 1)], s);
  }
  for (auto it = at.rbegin(); it != at.rend(); ++it) {
    p.items.insert(p.items.begin() + static_cast<std::ptrdiff_t>(it->first), it->second);
  }
}

Program BuildUnwarmed(ProgramBuilder& b, const SynthConfig& config, int rank, int step_index) {
  const bool late = config.scenario == Scenario::kLateStart && rank == StragglerRank(config);
  // The step begins after the host's delay: idle outside the profiled step, the work unchanged.
  b.Plain(OpKind::kStepBegin, late ? static_cast<TimeNs>(std::llround(config.late_start_ms * 1e6)) : 0);
  switch (config.scenario) {
    case Scenario::kDdp:
    case Scenario::kStraggler:
    case Scenario::kClockOffset:
    case Scenario::kLateStart:
      if (config.scenario == Scenario::kStraggler && rank == StragglerRank(config)) {
        b.SetSlowdown(config.straggler_factor);
      }
      BuildTraining(b, step_index);
      break;
    case Scenario::kMoe:
      BuildMoe(b, step_index);
      break;
    case Scenario::kPipeline:
      BuildPipeline(b, step_index);
      break;
    case Scenario::kDecode:
    case Scenario::kGraphDecode:
    case Scenario::kGraphDecodeReplayOnly:
      BuildDecode(b, step_index);
      break;
    case Scenario::kHostbound:
      BuildHostbound(b, step_index);
      break;
    case Scenario::kHostCauses:
      BuildHostCauses(b, step_index);
      break;
    case Scenario::kDdpExposed: {
      BuildTraining(b, step_index);
      Program p = b.Take();
      ExposeAllReduces(p);
      return p;
    }
  }
  return b.Take();
}

}  // namespace

Program BuildProgram(const SynthConfig& config, const GpuSpec& gpu, int rank, int step_index) {
  ProgramBuilder b(config, gpu, rank, step_index);
  Program p = BuildUnwarmed(b, config, rank, step_index);
  if (step_index < config.warm_up_steps) LoadModulesAsLaunched(p, b.rng(), step_index == 0);
  AddHostStalls(p, b.rng(), config.host_stalls);
  return p;
}

}  // namespace plasmient::synth
