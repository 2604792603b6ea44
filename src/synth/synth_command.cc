#include "synth/synth_command.h"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

namespace plasmient::synth {

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
      "synth {}: {} ranks x {} steps, {} GPU activities, {:.1f} MB of {} in {:.2f} s "
      "({:.0f} MB/s) -> {}/truth.json\n",
      ScenarioName(config.scenario), config.ranks, config.steps, p->gpu_activities,
      static_cast<double>(p->trace_bytes) * 1e-6,
      config.format == TraceFormat::kNative ? "native files" : "trace JSON", seconds,
      seconds > 0 ? static_cast<double>(p->trace_bytes) * 1e-6 / seconds : 0.0, out_dir);
  return 0;
}

}  // namespace plasmient::synth
