// What to generate: a scenario, the device, the job's shape and the seed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace plasmient::synth {

enum class Scenario : std::uint8_t {
  kDdp,          // data-parallel training, bucketed all-reduce overlapped with backward
  kStraggler,    // ddp with one rank's compute slower by straggler_factor
  kPipeline,     // 1F1B, one rank per stage, P2P send/recv
  kDecode,       // memory-bound LLM decode serving
  kHostbound,    // launch gaps, tiny kernels, a data-loader stall
  kMoe,          // expert GEMMs on a few % of tokens, all-to-all
  kClockOffset,  // ddp with every rank's clock shifted by a known amount
  kDdpExposed,   // ddp whose gradient all-reduces all run after the backward pass (none overlapped)
  kHostCauses,   // host-bound idle of known causes: allocator calls, a data loader, unnamed stalls
  // decode whose compute kernels run from one CUDA-graph replay per step, with a trace of the
  // graph's capture beside each rank's replay trace; and the same replays with no capture trace
  kGraphDecode,
  kGraphDecodeReplayOnly,
  kLateStart,  // ddp with one rank beginning every step late_start_ms after its peers (same work)
};

// A host stall of a known cause that any scenario can carry once a step (synth --host-stall
// CAUSE:MS): the host holds the launches for 0.8-1.2× `ms` inside the host range real traces show
// for that cause, and truth.json gives the GPU idle it leaves to `cause` (docs/synth.md).
struct HostStallSpec {
  std::string cause;  // a HostStallKind's cause
  double ms = 0;
};
// How each cause's stall is recorded: the range's name ("" for none), and whether it is a runtime
// call or the profiler's own work (Kineto cat "overhead"); otherwise an annotation.
struct HostStallKind {
  std::string_view cause;
  const char* call;
  bool api = false;
  bool overhead = false;
};
std::span<const HostStallKind> HostStallKinds();
const HostStallKind* FindHostStallKind(std::string_view cause);
// "allocator:2.5" → {allocator, 2.5}; an unknown cause or a length outside (0, 1000] ms fails.
Result<HostStallSpec> ParseHostStall(std::string_view arg);

bool IsDecode(Scenario scenario);   // decode served eagerly or from a graph
bool IsGraphed(Scenario scenario);  // the step's compute kernels replay a captured graph
bool HasCaptureTrace(Scenario scenario);

std::string_view ScenarioName(Scenario scenario);
std::vector<std::string> ScenarioNames();  // every scenario's name, in one list
Result<Scenario> ParseScenario(std::string_view name);

enum class TraceFormat : std::uint8_t {
  kKineto,  // the PyTorch profiler's JSON, one file per rank
  kNative,  // the live agent's native file (docs/agent.md), one whole-run file per rank
};

struct SynthConfig {
  Scenario scenario = Scenario::kDdp;
  TraceFormat format = TraceFormat::kKineto;
  std::string gpu = "h100_sxm";  // key in gpu_table, as in the device table (docs/devices.md)
  int ranks = 2;
  int steps = 3;
  std::uint64_t seed = 1;
  bool gzip = false;  // Kineto only
  // Native: the device tier's sampling period (the agent's default is 100 ms; synth runs last
  // milliseconds).
  double sample_period_ms = 10;
  // Native: the agent's duty cycle (docs/agent.md, "Windows"): kernel windows of window_s at the
  // end of every period_s, each window and each stretch between windows its own file. period_s
  // 0: one whole-run file per rank.
  double window_s = 0;
  double period_s = 0;
  int gzip_level = 1;
  int first_step_number = 3;  // ProfilerStep#N of the first profiled step

  // Transformer sizes (training scenarios).
  int layers = 4;
  int hidden = 2048;
  int heads = 16;
  int seq_len = 2048;
  int micro_batch = 2;
  int buckets = 4;  // ddp gradient buckets per step (at most one per layer)

  // straggler
  double straggler_factor = 1.5;
  int straggler_rank = -1;  // -1: the last rank (straggler, late-start)

  // late-start: the late rank's host is busy this long before each step (outside the profiled
  // step: the previous step's tail, the input pipeline, another process)
  double late_start_ms = 5;

  // any scenario: the first warm_up_steps steps of every rank load each kernel's module as they
  // launch it (a cuModuleLoadData call before every GPU activity, the GPU idle meanwhile): the
  // run's warm-up inside the profile, its idle's cause in truth.json as "compile"
  int warm_up_steps = 0;
  // any scenario: host stalls of known causes, each once a step (--host-stall CAUSE:MS)
  std::vector<HostStallSpec> host_stalls;
  // Kineto: write each step's ProfilerStep#N range (false: a trace with no step marks, as a
  // program profiled without prof.step() writes; the verdict reads its iterations from the
  // timeline, docs/verdict.md "Warm-up")
  bool step_marks = true;

  // pipeline: stages = ranks
  int microbatches = 8;

  // decode
  int batch = 8;
  int context = 2048;
  int vocab = 32000;

  // moe
  int experts = 8;
  double expert_token_fraction = 0.015;

  // clocks: rank r's trace clock = true clock + offset_r, |offset_r| <= clock_offset_ms
  double clock_offset_ms = 0;
};

// Checks ranges and combinations; one line naming the bad field.
Status Validate(const SynthConfig& config);

}  // namespace plasmient::synth
