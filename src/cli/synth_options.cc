#include "cli/synth_options.h"

#include "base/text.h"

namespace plasmient::cli {

void AddSynthOptions(CLI::App& app, synth::SynthConfig& c, std::string& out_dir) {
  // IsMember lists the names plainly ({ddp,straggler,...}) and checks the name in any case; the
  // names are lower case, so the lower-cased name is one of them.
  app.add_option_function<std::string>(
         "--scenario",
         [&c](const std::string& name) { c.scenario = synth::ParseScenario(AsciiLower(name)).value(); },
         "Workload (default ddp)")
      ->check(CLI::IsMember(synth::ScenarioNames(), CLI::ignore_case));
  app.add_option("-o,--out", out_dir,
                 "Folder for the rank traces (rank-<r>.pt.trace.json[.gz], or the agent's "
                 "plasmient.rank<r>.<host>.<pid>.pltrace) and truth.json")
      ->required();
  app.add_option_function<std::string>(
         "--format",
         [&c](const std::string& name) {
           c.format =
               AsciiLower(name) == "native" ? synth::TraceFormat::kNative : synth::TraceFormat::kKineto;
         },
         "kineto (PyTorch profiler JSON, default) or native (the live agent's files, docs/agent.md)")
      ->check(CLI::IsMember({"kineto", "native"}, CLI::ignore_case));
  app.add_option("--sample-period-ms", c.sample_period_ms, "Native: the device tier's sampling period")
      ->capture_default_str();
  app.add_option("--window-s", c.window_s,
                 "Native: kernel windows of this length at the end of every --period-s, as the "
                 "agent's duty cycle (files <job>-<rank>-<host>-<pid>-<seq>.pltrace)");
  app.add_option("--period-s", c.period_s,
                 "Native: the duty cycle's period (0: one whole-run file per rank)");
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
  app.add_option("--straggler-rank", c.straggler_rank, "Straggler (or late-start) rank (-1: last)")
      ->capture_default_str();
  app.add_option("--late-start-ms", c.late_start_ms,
                 "late-start: host delay before each step of the late rank")
      ->capture_default_str();
  app.add_option("--warm-up-steps", c.warm_up_steps,
                 "the first N steps load each kernel's module as they launch it (a warm-up)")
      ->capture_default_str();
  app.add_option_function<std::vector<std::string>>(
         "--host-stall",
         [&c](const std::vector<std::string>& args) {
           for (const std::string& a : args) {
             auto s = synth::ParseHostStall(a);
             if (!s) throw CLI::ValidationError("--host-stall", s.error().message);
             c.host_stalls.push_back(std::move(*s));
           }
         },
         "CAUSE:MS, repeatable: once a step, the host stalls about MS inside the range real traces "
         "show for CAUSE (allocator, blocking_copy, compile, data_loading, graph_capture, "
         "host_collective, host_work, profiler_overhead, unknown)")
      ->allow_extra_args(false);
  app.add_flag_function(
      "--no-step-marks", [&c](std::int64_t) { c.step_marks = false; },
      "Kineto: write no ProfilerStep#N ranges (a program profiled without prof.step())");
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

}  // namespace plasmient::cli
