// Builds the program of one rank for one step. Deterministic: the same (config, rank,
// step) always gives the same program, so the job can be simulated twice (once for the
// cross-rank communication ends, once to write) without holding more than one rank.
#pragma once

#include <cstdint>
#include <string>

#include "synth/gpu_table.h"
#include "synth/rank_program.h"
#include "synth/synth_config.h"

namespace plasmient::synth {

// SplitMix64: small, fast, and the same on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next();
  double Uniform(double lo, double hi);

 private:
  std::uint64_t state_;
};

std::uint64_t MixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c);

// The rank whose compute is slowed (straggler scenario), or -1.
int StragglerRank(const SynthConfig& config);

Program BuildProgram(const SynthConfig& config, const GpuSpec& gpu, int rank, int step_index);

// Shared by the scenario builders: appends items with their models and durations.
class ProgramBuilder {
 public:
  ProgramBuilder(const SynthConfig& config, const GpuSpec& gpu, int rank, int step_index);

  std::int16_t Module(std::string name, std::int16_t parent = -1);
  Item& Linear(std::int64_t m, std::int64_t n, std::int64_t k, std::int16_t module);
  Item& Mm(std::int64_t m, std::int64_t n, std::int64_t k, const char* autograd_fn);
  Item& Sdpa(bool backward, std::int64_t b, std::int64_t h, std::int64_t lq, std::int64_t lk, std::int64_t d,
             bool causal, std::int16_t module);
  // Byte-model ops over an [m, n] tensor: kLayerNorm, kGelu, kAdd, kSoftmax, ...
  Item& Pointwise(OpKind kind, std::int64_t m, std::int64_t n, std::int16_t module,
                  const char* autograd_fn = nullptr, Dtype dtype = Dtype::kBf16);
  Item& Unmodeled(OpKind kind, TimeNs gpu_ns, std::int16_t module);
  Item& Copy(OpKind kind, std::int64_t bytes);  // memcpy/memset
  Item& Collective(OpKind kind, std::int64_t nelems, int world, bool gates_compute);
  Item& P2p(OpKind kind, std::uint32_t group, int peer, std::int64_t nelems, std::uint8_t stream);
  Item& Plain(OpKind kind, TimeNs gpu_ns = 0);

  void SetSlowdown(double factor) { slowdown_ = factor; }
  void SetCpuRange(double lo_us, double hi_us) {
    cpu_lo_us_ = lo_us;
    cpu_hi_us_ = hi_us;
  }
  Rng& rng() { return rng_; }
  const SynthConfig& config() const { return config_; }
  int rank() const { return rank_; }
  Program Take() { return std::move(program_); }

  // A forward op a backward item differentiates: its module and autograd sequence number.
  struct ForwardRef {
    std::int16_t module = -1;
    std::int64_t sequence_number = -1;
  };
  static ForwardRef Ref(const Item& item) { return {item.module, item.sequence_number}; }
  static Item& Differentiates(Item& backward, const ForwardRef& forward);

  // Transformer pieces used by several scenarios; m = tokens.
  void BlockForward(int layer, std::int64_t batch, std::int64_t seq, std::int64_t kv_len,
                    bool with_unmodeled);
  void BlockBackward(int layer, std::int64_t batch, std::int64_t seq);

 private:
  struct BlockRecord {
    ForwardRef ln1, qkv, attention, proj, ln2, fc1, gelu, fc2;
  };
  Item& Push(OpKind kind);
  void Sequence(Item& item, bool backward);
  Item& Gemm(OpKind kind, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t bias_elems);
  TimeNs KernelNs(double flops, double bytes, double compute_eff);
  TimeNs CpuNs();

  const SynthConfig& config_;
  const GpuSpec& gpu_;
  int rank_;
  Rng rng_;
  Program program_;
  std::vector<BlockRecord> blocks_;  // per layer: its last forward pass
  std::int16_t last_forward_module_ = -1;
  double slowdown_ = 1.0;
  double cpu_lo_us_ = 6;
  double cpu_hi_us_ = 12;
  std::int64_t sequence_number_ = 0;
};

void BuildTraining(ProgramBuilder& b, int step_index);  // ddp, straggler, clock-offset
void BuildMoe(ProgramBuilder& b, int step_index);
void BuildPipeline(ProgramBuilder& b, int step_index);
void BuildDecode(ProgramBuilder& b, int step_index);
void BuildHostbound(ProgramBuilder& b, int step_index);
void BuildHostCauses(ProgramBuilder& b, int step_index);

// Transfer times of communication (ns), identical on every participant.
TimeNs AllReduceNs(std::int64_t bytes, int world);
TimeNs AllToAllNs(std::int64_t bytes, int world);
TimeNs P2pNs(std::int64_t bytes);

}  // namespace plasmient::synth
