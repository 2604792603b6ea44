// The achieved fraction of peak estimated from device counters alone (docs/counters.md): one model
// for the agent's NVML/GPM samples, an Nsight Systems export's GPU metrics and dcgm-exporter's
// DCGM_FI_PROF_* series. Pipe activity × (SM clock / the clock the datasheet peak assumes) ×
// the useful share of the pipe's cycles (tile quantization), bounded by SM activity, summed over
// the pipes the counters split (per dtype class) at each pipe's peak over the dominant dtype's.
// An estimate, never a measurement: calibration against kernel windows is counter_calibration.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/device_table.h"
#include "roofline/dtype.h"

namespace plasmient::roofline {

// What the counters read. Activity fields are ratios 0-1 of elapsed cycles (a source's percents
// are divided by 100 by SetCounter); the clock is in MHz.
enum class CounterField : std::uint8_t {
  kTensorActive,  // any tensor pipe (GPM ANY_TENSOR_UTIL, DCGM PIPE_TENSOR_ACTIVE, Nsight tensor active)
  kHmmaActive,    // the half-precision tensor pipe: fp16/bf16/tf32 (and fp8/fp4 where it runs them)
  kImmaActive,    // the integer tensor pipe: int8
  kDmmaActive,    // the fp64 tensor pipe
  kFp16Active,    // non-tensor pipes
  kFp32Active,
  kFp64Active,
  kSmActive,    // share of SMs with a warp resident
  kDramActive,  // share of peak DRAM bandwidth
  kGrActive,    // graphics/compute engine busy
  kSmClockMhz,
  kCount
};
inline constexpr int kCounterFields = static_cast<int>(CounterField::kCount);
std::string_view CounterFieldName(CounterField f);  // "tensor_active", ..., "sm_clock_mhz"

struct CounterReading {
  std::array<std::optional<double>, kCounterFields> values;
  std::optional<double> Get(CounterField f) const { return values[static_cast<int>(f)]; }
  void Set(CounterField f, double v) { values[static_cast<int>(f)] = v; }
  bool Has(CounterField f) const { return values[static_cast<int>(f)].has_value(); }
};

// The field a series name stands for, in whichever source's spelling: the model's names
// ("gpm.tensor_util_pct", "nvml.sm_clock_mhz"), dcgm-exporter's ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
// "DCGM_FI_DEV_SM_CLOCK"). nullopt for a name the model does not read.
std::optional<CounterField> CounterFieldFromName(std::string_view name);
// Whether the name's values are percents (GPM, Nsight) rather than ratios (DCGM PROF) or MHz.
bool CounterNameIsPercent(std::string_view name);
// A value in the source's unit stored in the model's (ratio 0-1, MHz); activity clamped to [0, 1].
void SetCounter(CounterReading& r, std::string_view name, double value);

struct CounterModelOptions {
  // The share of the tensor pipe's active cycles that did useful (unpadded) work: tile
  // quantization and wave effects make the pipe run on padding (TileQuantizationEfficiency).
  // 1 when unknown; calibration by the windows fits what it and the rest leave.
  double tile_efficiency = 1.0;
};

// One pipe's part of the estimate.
struct CounterTerm {
  CounterField field = CounterField::kTensorActive;
  PeakKind pipe = PeakKind::kBf16;  // the peak its activity is counted at
  double activity = 0;              // ratio 0-1, after bounding by SM activity
  double clock_factor = 1;          // SM clock / the clock that pipe's peak assumes
  double weight = 1;                // the pipe's peak over the dominant dtype's
  double fraction = 0;              // its part of the achieved fraction
};

struct CounterEstimate {
  bool valid = false;   // false: no pipe activity was read (only utilization: no estimate)
  double achieved = 0;  // of the dominant dtype's datasheet peak, clamped to [0, 1]
  double raw = 0;       // before clamping
  PeakKind peak = PeakKind::kBf16;
  double clock_factor = 1;         // of the main term; 1 when the clock or the peak's clock is unknown
  double tile_efficiency = 1;      // as given
  bool clock_known = false;        // the SM clock was read and the peak's clock is known
  bool bounded_by_sm = false;      // a tensor reading exceeded SM activity and was cut to it
  bool memory_bound_hint = false;  // DRAM activity ≥ 0.6 while the pipes read under half of it
  std::vector<CounterTerm> terms;
  std::vector<std::string> notes;
};

// The SM clock (GHz) a datasheet peak assumes: the peak over SMs × the architecture's per-SM rate
// per clock where the architecture is known (Hopper: the tensor figures assume 1.83 GHz on an
// H100 SXM, FP32/FP64 1.98 GHz; docs/gpu-peaks.md), else the device's boost clock; 0 when unknown.
double PeakClockGhz(const DeviceSpec& device, PeakKind kind);

// The estimate for work whose dominant dtype is `dtype` (its peak is the verdict's P).
// `device` null: no peak or clock known, the activity itself is the estimate (a note says so).
CounterEstimate EstimateFromCounters(const CounterReading& reading, const DeviceSpec* device, Dtype dtype,
                                     MathMode mode = MathMode::kIeeeFp32,
                                     const CounterModelOptions& options = {});

// Useful share of a GEMM's tensor-pipe cycles when its M×N output is cut into tile_m × tile_n
// tiles, the last row and column of tiles padded: M·N / (⌈M/tm⌉·tm · ⌈N/tn⌉·tn). Wave
// quantization (tiles not filling the last wave of SMs) leaves SMs idle, which SM and tensor
// activity already show, so it is not corrected for here.
double TileQuantizationEfficiency(std::int64_t m, std::int64_t n, std::int64_t tile_m = 128,
                                  std::int64_t tile_n = 128);

}  // namespace plasmient::roofline
