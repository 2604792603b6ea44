#include "synth/synth_config.h"

#include <array>
#include <cstdlib>
#include <utility>

#include <fmt/ranges.h>

#include "synth/gpu_table.h"

namespace plasmient::synth {
namespace {

constexpr std::array<std::pair<Scenario, std::string_view>, 12> kNames = {{
    {Scenario::kDdp, "ddp"},
    {Scenario::kStraggler, "straggler"},
    {Scenario::kPipeline, "pipeline"},
    {Scenario::kDecode, "decode"},
    {Scenario::kHostbound, "hostbound"},
    {Scenario::kMoe, "moe"},
    {Scenario::kClockOffset, "clock-offset"},
    {Scenario::kDdpExposed, "ddp-exposed"},
    {Scenario::kHostCauses, "host-causes"},
    {Scenario::kGraphDecode, "graph-decode"},
    {Scenario::kGraphDecodeReplayOnly, "graph-decode-replay-only"},
    {Scenario::kLateStart, "late-start"},
}};

}  // namespace

// Each as real traces record it: the runtime call, the op or annotation, the profiler's event.
constexpr std::array<HostStallKind, 9> kHostStallKinds = {{
    {"allocator", "cudaFree", true, false},
    {"blocking_copy", "cudaMemcpy", true, false},
    {"compile", "cuModuleLoadData", true, false},
    {"data_loading", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", false, false},
    {"graph_capture", "cudaGraphInstantiate", true, false},
    {"host_collective", "gloo:all_reduce", false, false},
    {"host_work", "prepare_inputs", false, false},
    {"profiler_overhead", "Buffer Flush", false, true},
    {"unknown", "", false, false},
}};

std::span<const HostStallKind> HostStallKinds() { return kHostStallKinds; }

const HostStallKind* FindHostStallKind(std::string_view cause) {
  for (const HostStallKind& k : kHostStallKinds) {
    if (k.cause == cause) return &k;
  }
  return nullptr;
}

Result<HostStallSpec> ParseHostStall(std::string_view arg) {
  const std::size_t colon = arg.rfind(':');
  if (colon == std::string_view::npos) {
    return Fail("synth: --host-stall {}: expected CAUSE:MS (e.g. allocator:2.5)", arg);
  }
  HostStallSpec s{std::string(arg.substr(0, colon)), 0};
  const std::string ms(arg.substr(colon + 1));
  char* end = nullptr;
  s.ms = std::strtod(ms.c_str(), &end);
  if (ms.empty() || end != ms.c_str() + ms.size()) {
    return Fail("synth: --host-stall {}: '{}' is not a length in ms", arg, ms);
  }
  if (FindHostStallKind(s.cause) == nullptr) {
    std::vector<std::string_view> names;
    names.reserve(std::size(kHostStallKinds));
    for (const HostStallKind& k : kHostStallKinds) names.push_back(k.cause);
    return Fail("synth: --host-stall {}: no cause '{}' (one of {})", arg, s.cause, fmt::join(names, ", "));
  }
  if (!(s.ms > 0 && s.ms <= 1000)) return Fail("synth: --host-stall {}: {} ms out of (0, 1000]", arg, s.ms);
  return s;
}

bool IsDecode(Scenario s) { return s == Scenario::kDecode || IsGraphed(s); }
bool IsGraphed(Scenario s) { return s == Scenario::kGraphDecode || s == Scenario::kGraphDecodeReplayOnly; }
bool HasCaptureTrace(Scenario s) { return s == Scenario::kGraphDecode; }

std::string_view ScenarioName(Scenario scenario) {
  for (const auto& [s, name] : kNames) {
    if (s == scenario) return name;
  }
  return "ddp";
}

std::vector<std::string> ScenarioNames() {
  std::vector<std::string> out;
  out.reserve(kNames.size());
  for (const auto& [s, n] : kNames) out.emplace_back(n);
  return out;
}

Result<Scenario> ParseScenario(std::string_view name) {
  for (const auto& [s, n] : kNames) {
    if (n == name) return s;
  }
  return Fail("synth: unknown scenario '{}' ({})", name, fmt::join(ScenarioNames(), ", "));
}

Status Validate(const SynthConfig& c) {
  if (FindGpu(c.gpu) == nullptr) {
    return Fail("synth: unknown --gpu '{}' (h100_sxm, a100_sxm_80gb, h200_sxm)", c.gpu);
  }
  if (c.ranks < 1 || c.ranks > 65536) return Fail("synth: --ranks {} out of 1..65536", c.ranks);
  if (c.steps < 1 || c.steps > 100000) return Fail("synth: --steps {} out of 1..100000", c.steps);
  if (c.layers < 1 || c.layers > 512) return Fail("synth: --layers {} out of 1..512", c.layers);
  if (c.hidden < 64 || c.hidden % 64 != 0) {
    return Fail("synth: --hidden {} must be a multiple of 64, at least 64", c.hidden);
  }
  if (c.heads < 1 || c.hidden % c.heads != 0) {
    return Fail("synth: --heads {} must divide --hidden {}", c.heads, c.hidden);
  }
  if (c.seq_len < 16) return Fail("synth: --seq-len {} below 16", c.seq_len);
  if (c.micro_batch < 1) return Fail("synth: --micro-batch {} below 1", c.micro_batch);
  if (c.buckets < 1) return Fail("synth: --buckets {} below 1", c.buckets);
  if (c.straggler_factor < 1.0) {
    return Fail("synth: --straggler-factor {} below 1 (kernels would beat the peak)", c.straggler_factor);
  }
  if (c.late_start_ms < 0 || c.late_start_ms > 60'000) {
    return Fail("synth: --late-start-ms {} out of 0..60000", c.late_start_ms);
  }
  if (c.warm_up_steps < 0 || c.warm_up_steps > c.steps) {
    return Fail("synth: --warm-up-steps {} out of 0..--steps ({})", c.warm_up_steps, c.steps);
  }
  for (const HostStallSpec& s : c.host_stalls) {
    const HostStallKind* kind = FindHostStallKind(s.cause);
    if (kind == nullptr) return Fail("synth: --host-stall {}: no such cause", s.cause);
    if (!(s.ms > 0 && s.ms <= 1000))
      return Fail("synth: --host-stall {}:{} out of (0, 1000] ms", s.cause, s.ms);
    if (kind->overhead && c.format != TraceFormat::kKineto) {
      return Fail("synth: --host-stall {} is for Kineto JSON; the agent records no overhead events", s.cause);
    }
  }
  if (!c.step_marks && c.format != TraceFormat::kKineto) {
    return Fail("synth: --no-step-marks is for Kineto JSON; native files always mark their steps");
  }
  if (c.straggler_rank >= c.ranks) {
    return Fail("synth: --straggler-rank {} not below --ranks {}", c.straggler_rank, c.ranks);
  }
  if (c.scenario == Scenario::kPipeline) {
    if (c.ranks < 2) return Fail("synth: pipeline needs --ranks >= 2 (one rank per stage)");
    if (c.microbatches < 1) return Fail("synth: --microbatches {} below 1", c.microbatches);
    if (c.layers < c.ranks) {
      return Fail("synth: pipeline needs --layers ({}) >= --ranks ({})", c.layers, c.ranks);
    }
  }
  if (c.batch < 1 || c.batch > 4096) return Fail("synth: --batch {} out of 1..4096", c.batch);
  if (c.context < 1) return Fail("synth: --context {} below 1", c.context);
  if (c.experts < 1) return Fail("synth: --experts {} below 1", c.experts);
  if (c.expert_token_fraction <= 0 || c.expert_token_fraction > 1) {
    return Fail("synth: --expert-token-fraction {} out of (0, 1]", c.expert_token_fraction);
  }
  // Hosts without clock sync can be hours apart; a day bounds what any capture would show.
  if (c.clock_offset_ms < 0 || c.clock_offset_ms > 86'400'000) {
    return Fail("synth: --clock-offset-ms {} out of 0..86400000 (a day)", c.clock_offset_ms);
  }
  if (c.gzip_level < 1 || c.gzip_level > 9) return Fail("synth: gzip level {} out of 1..9", c.gzip_level);
  if (c.format == TraceFormat::kNative && c.gzip) {
    return Fail("synth: --gzip is for Kineto JSON; native files compress their chunks (zstd)");
  }
  if (!(c.sample_period_ms > 0))
    return Fail("synth: --sample-period-ms {} is not positive", c.sample_period_ms);
  if (c.period_s < 0 || (c.period_s > 0 && !(c.window_s > 0))) {
    return Fail("synth: --window-s {} --period-s {}: a window needs both positive", c.window_s, c.period_s);
  }
  if (IsGraphed(c.scenario) && c.format != TraceFormat::kKineto) {
    return Fail("synth: --scenario {} writes Kineto JSON only", ScenarioName(c.scenario));
  }
  if (c.period_s > 0 && c.format != TraceFormat::kNative)
    return Fail("synth: --period-s needs --format native");
  return Ok();
}

}  // namespace plasmient::synth
