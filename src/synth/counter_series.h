// Device counters consistent with a synth job's kernels, and their truth (docs/counters.md, "Truth
// on the synth fleet"): one rank's steps replayed for a long run on a clock that throttles, binned
// into the samples an agent's NVML/GPM sampler would read (tensor, SM and DRAM activity, SM clock,
// each with sampling noise), with the exact achieved fraction of every bin, and the kernel windows
// of a duty-cycled agent (window_s at the start of every period_s).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/trace.h"
#include "synth/synth_config.h"

namespace plasmient::synth {

struct CounterSeriesOptions {
  double duration_s = 1800;
  double sample_period_s = 1;  // one NVML/GPM sample per period (GPM needs ≥ 100 ms)
  double period_s = 60, window_s = 2;
  // The clock a sustained tensor load runs at, as a share of the clock the tensor peak assumes.
  double nominal_clock = 0.96;
  // Throttling episodes (power or thermal capping): on average one every throttle_every_s,
  // lasting 20-120 s, the clock at throttle_min-0.95 of nominal.
  double throttle_every_s = 240;
  double throttle_min = 0.75;
  double activity_noise = 0.01;  // σ of each activity reading (ratio)
  double clock_noise = 0.005;    // relative σ of each clock reading
  std::uint64_t seed = 1;
};

// One sample period.
struct CounterBin {
  double start_s = 0;
  double tensor_active = 0, sm_active = 0, dram_active = 0;  // as read (noisy), ratios 0-1
  double sm_clock_mhz = 0;                                   // as read
  double useful_flops = 0;                                   // the truth: the kernels' FLOPs in the bin
};

struct CounterSeries {
  double peak_flops_per_s = 0;  // the device's dense BF16 tensor peak (the verdict's P)
  double peak_clock_mhz = 0;    // the clock that peak assumes
  double sample_period_s = 1;
  double mean_tile_efficiency = 0;  // FLOP-weighted over the tensor kernels: what a calibration fits
  std::vector<CounterBin> bins;
  std::vector<std::pair<double, double>> windows;  // [start, end) seconds

  // The exact achieved fraction over [from_s, to_s): the bins' FLOPs over P × the time.
  double TruthOver(double from_s, double to_s) const;
  // The bins of [from_s, to_s) as device-tier samples on device 0 (the model's metric names:
  // model::kTensorActiveMetric, ..., "nvml.sm_clock_mhz"), one per bin at its start.
  model::Trace SamplesOver(double from_s, double to_s) const;
};

// One rank of `config` (training or serving scenarios), its steps repeated for the whole run.
Result<CounterSeries> GenerateCounterSeries(const SynthConfig& config, int rank,
                                            const CounterSeriesOptions& options);

}  // namespace plasmient::synth
