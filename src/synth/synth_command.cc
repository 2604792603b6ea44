#include "synth/synth_command.h"

#include <chrono>
#include <cstdio>
#include <map>

#include <fmt/format.h>

namespace plasmient::synth {

void AddSynthOptions(CLI::App& app, SynthConfig& c, std::string& out_dir) {
  static const std::map<std::string, Scenario> kScenarios = {{"ddp", Scenario::kDdp},
                                                             {"straggler", Scenario::kStraggler},
                                                             {"pipeline", Scenario::kPipeline},
                                                             {"decode", Scenario::kDecode},
                                                             {"hostbound", Scenario::kHostbound},
                                                             {"moe", Scenario::kMoe},
                                                             {"clock-offset", Scenario::kClockOffset},
                                                             {"ddp-exposed", Scenario::kDdpExposed}};
  app.add_option("--scenario", c.scenario,
                 "Workload: ddp, straggler, pipeline, decode, hostbound, moe, clock-offset, ddp-exposed")
      ->transform(CLI::CheckedTransformer(kScenarios, CLI::ignore_case));
  app.add_option("-o,--out", out_dir, "Folder for rank-<r>.pt.trace.json[.gz] and truth.json")->required();
  app.add_option("--gpu", c.gpu, "Device: h100_sxm, a100_sxm_80gb, h200_sxm")->capture_default_str();
  app.add_option("--ranks", c.ranks, "Ranks (pipeline: stages)")->capture_default_str();
  app.add_option("--steps", c.steps, "Profiled steps per rank")->capture_default_str();
  app.add_option("--seed", c.seed, "Seed; same seed, same files")->capture_default_str();
  app.add_flag("--gzip", c.gzip, "Write .json.gz");
  app.add_option("--gzip-level", c.gzip_level, "zlib level 1..9")->capture_default_str();
  app.add_option("--first-step", c.first_step_number, "ProfilerStep#N of the first step")
      ->capture_default_str();
  app.add_option("--layers", c.layers, "Transformer layers")->capture_default_str();
  app.add_option("--hidden", c.hidden, "Hidden size")->capture_default_str();
  app.add_option("--heads", c.heads, "Attention heads")->capture_default_str();
  app.add_option("--seq-len", c.seq_len, "Sequence length")->capture_default_str();
  app.add_option("--micro-batch", c.micro_batch, "Sequences per microbatch")->capture_default_str();
  app.add_option("--buckets", c.buckets, "DDP gradient buckets")->capture_default_str();
  app.add_option("--straggler-factor", c.straggler_factor, "Compute slowdown of the straggler")
      ->capture_default_str();
  app.add_option("--straggler-rank", c.straggler_rank, "Straggler rank (-1: last)")->capture_default_str();
  app.add_option("--microbatches", c.microbatches, "Pipeline microbatches per step")->capture_default_str();
  app.add_option("--batch", c.batch, "Decode batch size")->capture_default_str();
  app.add_option("--context", c.context, "Decode KV-cache length at the first step")->capture_default_str();
  app.add_option("--vocab", c.vocab, "Vocabulary size")->capture_default_str();
  app.add_option("--experts", c.experts, "MoE experts")->capture_default_str();
  app.add_option("--expert-token-fraction", c.expert_token_fraction, "Share of tokens per expert")
      ->capture_default_str();
  app.add_option("--clock-offset-ms", c.clock_offset_ms, "Max |clock offset| of ranks 1..N-1")
      ->capture_default_str();
}

int RunSynthCommand(const SynthConfig& config, const std::string& out_dir, Progress* progress) {
  Progress local;
  Progress* p = progress != nullptr ? progress : &local;
  const auto start = std::chrono::steady_clock::now();
  const Status status = WriteJob(config, out_dir, p);
  if (!status) {
    fmt::print(stderr, "plasmient synth: {}\n", status.error().message);
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "synth {}: {} ranks x {} steps, {} GPU activities, {:.1f} MB of trace JSON in {:.2f} s "
      "({:.0f} MB/s) -> {}/truth.json\n",
      ScenarioName(config.scenario), config.ranks, config.steps, p->gpu_activities,
      static_cast<double>(p->trace_bytes) * 1e-6, seconds,
      seconds > 0 ? static_cast<double>(p->trace_bytes) * 1e-6 / seconds : 0.0, out_dir);
  return 0;
}

}  // namespace plasmient::synth
