#include "synth/counter_series.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "model/trace_builder.h"
#include "synth/gpu_table.h"
#include "synth/program_builder.h"
#include "synth/rank_simulator.h"

namespace plasmient::synth {
namespace {

constexpr std::string_view kSmClockSample = "nvml.sm_clock_mhz";

// One kernel of a step, as the counters see it.
struct SeriesKernel {
  double seconds = 0;  // at the nominal clock
  double flops = 0, bytes = 0;
  double tile_efficiency = 1;  // tensor kernels: useful share of the pipe's cycles
  bool tensor = false;
  bool compute_bound = false;  // its time scales with the clock
  bool idle = false;           // the GPU has nothing resident (a host stall, an exposed wait)
};

double PaddedShare(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) return 1;
  constexpr std::int64_t kTile = 128;
  auto padded = [](std::int64_t x) {
    const std::int64_t tiles = (x + kTile - 1) / kTile;  // whole tiles, rounded up
    return static_cast<double>(tiles * kTile);
  };
  return static_cast<double>(m) * static_cast<double>(n) / (padded(m) * padded(n));
}

// The per-SM tensor rate (BF16 FLOP per SM per clock) the peak is the product of.
double TensorRatePerSm(const GpuSpec& gpu) { return gpu.gemm_prefix == "sm90" ? 4096 : 2048; }

std::vector<SeriesKernel> StepKernels(const Program& program, const GpuSpec& gpu) {
  std::vector<SeriesKernel> out;
  const double ridge = gpu.bf16_flops_per_s / gpu.mem_bytes_per_s;
  for (const Item& item : program.items) {
    const double seconds = static_cast<double>(item.gpu_ns) / 1e9;
    if (item.kind == OpKind::kHostStall || (IsCommunication(item.kind) && item.gates_compute)) {
      out.push_back({.seconds = seconds, .idle = true});
      continue;
    }
    if (!HasGpuActivity(item.kind) || item.stream != kComputeStream || seconds <= 0) continue;
    SeriesKernel k;
    k.seconds = seconds + static_cast<double>(kKernelGapNs) / 1e9;
    k.flops = item.flop_model ? item.flops : 0;
    k.bytes = item.bytes;
    const bool sixteen = item.dtype == Dtype::kBf16 || item.dtype == Dtype::kFp16;
    switch (item.kind) {
      case OpKind::kLinear:
      case OpKind::kMm:
        k.tensor = sixteen;
        k.tile_efficiency = PaddedShare(item.d[0], item.d[1]);
        break;
      case OpKind::kSdpaFwd:
      case OpKind::kSdpaBwd:
        k.tensor = sixteen;
        k.tile_efficiency = PaddedShare(item.d[2], item.d[3]);
        break;
      default:
        break;
    }
    k.compute_bound = k.flops > 0 && (k.bytes <= 0 || k.flops / k.bytes >= ridge);
    out.push_back(k);
  }
  return out;
}

// Deterministic normal deviates from the synth RNG (Box-Muller).
double Normal(Rng& rng) {
  const double u1 = std::max(rng.Uniform(0, 1), 1e-12), u2 = rng.Uniform(0, 1);
  return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

double CounterSeries::TruthOver(double from_s, double to_s) const {
  double flops = 0, seconds = 0;
  for (const CounterBin& b : bins) {
    if (b.start_s + 1e-9 < from_s || b.start_s + 1e-9 >= to_s) continue;
    flops += b.useful_flops;
    seconds += sample_period_s;
  }
  return seconds > 0 ? flops / (peak_flops_per_s * seconds) : 0;
}

model::Trace CounterSeries::SamplesOver(double from_s, double to_s) const {
  model::TraceBuilder b;
  for (const CounterBin& bin : bins) {
    if (bin.start_s + 1e-9 < from_s || bin.start_s + 1e-9 >= to_s) continue;
    const auto ts = static_cast<TimeNs>(std::llround(bin.start_s * 1e9));
    b.AddSample({ts, 0, model::kTensorActiveMetric, bin.tensor_active * 100});
    b.AddSample({ts, 0, model::kSmActiveMetric, bin.sm_active * 100});
    b.AddSample({ts, 0, model::kDramActiveMetric, bin.dram_active * 100});
    b.AddSample({ts, 0, kSmClockSample, bin.sm_clock_mhz});
  }
  return std::move(b).Finish();
}

Result<CounterSeries> GenerateCounterSeries(const SynthConfig& config, int rank,
                                            const CounterSeriesOptions& o) {
  const GpuSpec* gpu = FindGpu(config.gpu);
  if (gpu == nullptr) return Fail("synth counters: no GPU '{}'", config.gpu);
  if (!(o.sample_period_s > 0) || !(o.duration_s >= o.sample_period_s) || !(o.period_s > o.window_s))
    return Fail("synth counters: bad periods");
  CounterSeries s;
  s.peak_flops_per_s = gpu->bf16_flops_per_s;
  s.peak_clock_mhz = gpu->bf16_flops_per_s / (TensorRatePerSm(*gpu) * gpu->num_sms) / 1e6;
  s.sample_period_s = o.sample_period_s;
  for (double t = 0; t + o.window_s <= o.duration_s; t += o.period_s)
    s.windows.emplace_back(t, t + o.window_s);

  std::vector<std::vector<SeriesKernel>> steps;
  double tensor_flops = 0, padded_flops = 0;
  for (int step = 0; step < std::max(1, config.steps); ++step) {
    steps.push_back(StepKernels(BuildProgram(config, *gpu, rank, step), *gpu));
    for (const auto& k : steps.back()) {
      if (!k.tensor) continue;
      tensor_flops += k.flops;
      padded_flops += k.flops / k.tile_efficiency;
    }
  }
  s.mean_tile_efficiency = padded_flops > 0 ? tensor_flops / padded_flops : 1;

  const auto bins = static_cast<std::size_t>(o.duration_s / o.sample_period_s);
  struct Truth {
    double flops = 0, padded = 0, busy = 0, bytes = 0, clock_s = 0;
  };
  std::vector<Truth> truth(bins);
  Rng rng(MixSeed(o.seed, static_cast<std::uint64_t>(rank), 0xC0C0, 7));
  // The clock: nominal, with throttling episodes.
  std::vector<double> clock(bins, o.nominal_clock);
  for (std::size_t i = 0; i < bins;) {
    const double gap = rng.Uniform(0.3, 1.7) * o.throttle_every_s;
    i += static_cast<std::size_t>(gap / o.sample_period_s);
    const auto length = static_cast<std::size_t>(rng.Uniform(20, 120) / o.sample_period_s);
    const double factor = rng.Uniform(o.throttle_min, 0.95);
    for (std::size_t j = i; j < std::min(bins, i + length); ++j) clock[j] = o.nominal_clock * factor;
    i += length;
  }
  const double bw = gpu->mem_bytes_per_s;
  // Replays the steps in order; each kernel's time and counters spread over the bins it spans.
  double t = 0;
  const double end = static_cast<double>(bins) * o.sample_period_s;
  for (std::size_t step = 0; t < end; step = (step + 1) % steps.size()) {
    if (steps[step].empty()) {
      t += o.sample_period_s;
      continue;
    }
    for (const SeriesKernel& k : steps[step]) {
      if (t >= end) break;
      const auto bin = std::min(bins - 1, static_cast<std::size_t>(t / o.sample_period_s));
      const double c = clock[bin] / o.nominal_clock;  // of nominal: compute-bound time scales by 1/c
      const double seconds = k.compute_bound ? k.seconds / c : k.seconds;
      // The tensor pipe's busy share over the kernel: padded FLOPs at the clock's peak.
      const double pipe_peak = s.peak_flops_per_s * clock[bin];
      const double padded = k.tensor ? std::min(k.flops / k.tile_efficiency, pipe_peak * seconds) : 0;
      for (double from = t; from < t + seconds && from < end;) {
        const auto b = std::min(bins - 1, static_cast<std::size_t>(from / o.sample_period_s));
        const double to = std::min(t + seconds, static_cast<double>(b + 1) * o.sample_period_s);
        const double share = (to - from) / seconds;
        if (!k.idle) {
          truth[b].flops += k.flops * share;
          truth[b].padded += padded * share;
          truth[b].busy += to - from;
          truth[b].bytes += k.bytes * share;
        }
        from = to;
      }
      t += seconds;
    }
  }
  s.bins.resize(bins);
  for (std::size_t i = 0; i < bins; ++i) {
    CounterBin& b = s.bins[i];
    const Truth& x = truth[i];
    b.start_s = static_cast<double>(i) * o.sample_period_s;
    b.useful_flops = x.flops;
    const double pipe_cycles = s.peak_flops_per_s * clock[i] * o.sample_period_s;
    auto read = [&](double v) { return std::clamp(v + o.activity_noise * Normal(rng), 0.0, 1.0); };
    b.tensor_active = read(x.padded / pipe_cycles);
    b.sm_active = read(std::min(1.0, x.busy / o.sample_period_s) * 0.97);
    b.dram_active = read(x.bytes / (bw * o.sample_period_s));
    b.sm_clock_mhz = s.peak_clock_mhz * clock[i] * (1 + o.clock_noise * Normal(rng));
  }
  return s;
}

}  // namespace plasmient::synth
