#include "roofline/counter_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/trace.h"

namespace plasmient::roofline {
namespace {

struct CounterName {
  std::string_view name;
  CounterField field;
  bool percent;
};

// Every spelling the model reads. GPM ids and Nsight metrics arrive as the model's gpm.* names
// (ingest names them so); dcgm-exporter's profiling fields are ratios, its DEV fields percent/MHz.
constexpr CounterName kCounterNames[] = {
    {model::kTensorActiveMetric, CounterField::kTensorActive, true},
    {"gpm.hmma_tensor_util_pct", CounterField::kHmmaActive, true},
    {"gpm.imma_tensor_util_pct", CounterField::kImmaActive, true},
    {"gpm.dmma_tensor_util_pct", CounterField::kDmmaActive, true},
    {"gpm.fp16_util_pct", CounterField::kFp16Active, true},
    {"gpm.fp32_util_pct", CounterField::kFp32Active, true},
    {"gpm.fp64_util_pct", CounterField::kFp64Active, true},
    {model::kSmActiveMetric, CounterField::kSmActive, true},
    {model::kDramActiveMetric, CounterField::kDramActive, true},
    {"nvml.sm_clock_mhz", CounterField::kSmClockMhz, false},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", CounterField::kTensorActive, false},
    {"DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE", CounterField::kHmmaActive, false},
    {"DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE", CounterField::kImmaActive, false},
    {"DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE", CounterField::kDmmaActive, false},
    {"DCGM_FI_PROF_PIPE_FP16_ACTIVE", CounterField::kFp16Active, false},
    {"DCGM_FI_PROF_PIPE_FP32_ACTIVE", CounterField::kFp32Active, false},
    {"DCGM_FI_PROF_PIPE_FP64_ACTIVE", CounterField::kFp64Active, false},
    {"DCGM_FI_PROF_SM_ACTIVE", CounterField::kSmActive, false},
    {"DCGM_FI_PROF_DRAM_ACTIVE", CounterField::kDramActive, false},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", CounterField::kGrActive, false},
    {"DCGM_FI_DEV_SM_CLOCK", CounterField::kSmClockMhz, false},
};

bool IsTensorPipe(PeakKind k) {
  switch (k) {
    case PeakKind::kFp64Tensor:
    case PeakKind::kFp32Matrix:
    case PeakKind::kTf32:
    case PeakKind::kBf16:
    case PeakKind::kFp16:
    case PeakKind::kFp8:
    case PeakKind::kInt8:
    case PeakKind::kFp4:
      return true;
    default:
      return false;
  }
}

bool IsHalfClassPipe(PeakKind k) {
  return k == PeakKind::kTf32 || k == PeakKind::kBf16 || k == PeakKind::kFp16 || k == PeakKind::kFp8 ||
         k == PeakKind::kFp4;
}

// FLOP per SM per clock, dense, for the architectures whose datasheet peaks assume a clock other
// than the boost clock the table gives (docs/gpu-peaks.md, "Per-SM rates"). 0: not known.
double PerSmRate(const DeviceSpec& d, PeakKind k) {
  // Hopper GH100 (H100, H200; not H20, a cut-down part with its own rates).
  static constexpr std::array<double, kPeakKinds> kHopper = {128,  256,  256,  0,    2048,
                                                             4096, 4096, 8192, 8192, 0};
  // Ampere GA100.
  static constexpr std::array<double, kPeakKinds> kAmpere = {64, 128, 128, 0, 1024, 2048, 2048, 0, 4096, 0};
  const std::string_view key = d.key;
  const auto i = static_cast<std::size_t>(k);
  if (key.starts_with("h100") || key.starts_with("h200")) return kHopper[i];
  if (key.starts_with("a100")) return kAmpere[i];
  return 0;
}

double Clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

}  // namespace

std::string_view CounterFieldName(CounterField f) {
  static constexpr std::array<std::string_view, kCounterFields> kNames = {
      "tensor_active", "hmma_active", "imma_active", "dmma_active", "fp16_active", "fp32_active",
      "fp64_active",   "sm_active",   "dram_active", "gr_active",   "sm_clock_mhz"};
  return kNames[static_cast<std::size_t>(f)];
}

std::optional<CounterField> CounterFieldFromName(std::string_view name) {
  for (const auto& n : kCounterNames) {
    if (n.name == name) return n.field;
  }
  return std::nullopt;
}

bool CounterNameIsPercent(std::string_view name) {
  for (const auto& n : kCounterNames) {
    if (n.name == name) return n.percent;
  }
  return false;
}

void SetCounter(CounterReading& r, std::string_view name, double value) {
  auto field = CounterFieldFromName(name);
  if (!field || !std::isfinite(value)) return;
  if (*field == CounterField::kSmClockMhz) {
    if (value > 0) r.Set(*field, value);
    return;
  }
  r.Set(*field, Clamp01(CounterNameIsPercent(name) ? value / 100 : value));
}

double PeakClockGhz(const DeviceSpec& device, PeakKind kind) {
  const double rate = PerSmRate(device, kind), peak = device.Peak(kind);
  if (rate > 0 && peak > 0 && device.sm_count > 0) return peak / (rate * device.sm_count) / 1e9;
  return device.boost_ghz;
}

CounterEstimate EstimateFromCounters(const CounterReading& r, const DeviceSpec* device, Dtype dtype,
                                     MathMode mode, const CounterModelOptions& options) {
  CounterEstimate e;
  e.tile_efficiency = options.tile_efficiency;
  const PeakKind main = device != nullptr ? PeakPipe(*device, dtype, mode) : PeakKind::kBf16;
  e.peak = main;
  const double main_peak = device != nullptr ? device->Peak(main) : 0;
  const std::optional<double> clock_mhz = r.Get(CounterField::kSmClockMhz);

  auto add = [&](CounterField field, PeakKind pipe, double activity) {
    CounterTerm t;
    t.field = field;
    t.pipe = pipe;
    t.activity = activity;
    if (device != nullptr && main_peak > 0) {
      t.weight = device->Peak(pipe) / main_peak;
      const double assumed = PeakClockGhz(*device, pipe);
      if (clock_mhz && assumed > 0) t.clock_factor = *clock_mhz / 1000 / assumed;
    }
    t.fraction =
        t.activity * t.clock_factor * t.weight * (IsTensorPipe(pipe) ? options.tile_efficiency : 1.0);
    e.terms.push_back(t);
  };

  const bool main_tensor = IsTensorPipe(main);
  // The half-precision class runs the dominant dtype's pipe when that is one of its own, else
  // is counted at the BF16 (else FP16) peak.
  PeakKind half = IsHalfClassPipe(main) ? main : PeakKind::kBf16;
  if (device != nullptr && device->Peak(half) <= 0) half = PeakKind::kFp16;
  const bool split = r.Has(CounterField::kHmmaActive) || r.Has(CounterField::kImmaActive) ||
                     r.Has(CounterField::kDmmaActive);
  if (split) {
    if (auto v = r.Get(CounterField::kHmmaActive)) add(CounterField::kHmmaActive, half, *v);
    if (auto v = r.Get(CounterField::kImmaActive)) add(CounterField::kImmaActive, PeakKind::kInt8, *v);
    if (auto v = r.Get(CounterField::kDmmaActive)) add(CounterField::kDmmaActive, PeakKind::kFp64Tensor, *v);
  } else if (auto v = r.Get(CounterField::kTensorActive)) {
    add(CounterField::kTensorActive, main_tensor ? main : half, *v);
  }
  // The non-tensor pipe of a dtype that runs there (fp32 IEEE, fp64 without a tensor pipe). Where
  // the dominant pipe is a tensor pipe the vector pipes are left out: at a few percent of its peak
  // their FLOPs round away, and their activity counts instructions that are not the model's FLOPs.
  if (!main_tensor) {
    if (main == PeakKind::kFp32) {
      if (auto v = r.Get(CounterField::kFp32Active)) add(CounterField::kFp32Active, PeakKind::kFp32, *v);
    } else if (main == PeakKind::kFp64) {
      if (auto v = r.Get(CounterField::kFp64Active)) add(CounterField::kFp64Active, PeakKind::kFp64, *v);
    }
  }
  if (e.terms.empty()) {
    e.notes.emplace_back(
        "no pipe activity read: no estimate (utilization says nothing about the arithmetic)");
    return e;
  }
  e.valid = true;

  // A tensor pipe cannot be active on more SMs than have a warp resident: readings over SM
  // activity are sampling noise (or the two from different intervals) and are cut to it.
  if (auto sm = r.Get(CounterField::kSmActive)) {
    double tensor = 0;
    for (const auto& t : e.terms) tensor += IsTensorPipe(t.pipe) ? t.activity : 0;
    if (tensor > *sm && tensor > 0) {
      const double scale = *sm / tensor;
      for (auto& t : e.terms) {
        if (!IsTensorPipe(t.pipe)) continue;
        t.fraction *= scale;
        t.activity *= scale;
      }
      e.bounded_by_sm = true;
    }
  }
  for (const auto& t : e.terms) e.raw += t.fraction;
  e.achieved = Clamp01(e.raw);
  e.clock_factor = e.terms.front().clock_factor;
  e.clock_known = device != nullptr && clock_mhz && PeakClockGhz(*device, e.terms.front().pipe) > 0;
  if (device == nullptr) {
    e.notes.emplace_back("no device row: the pipe activity alone, not normalized by clock or peak");
  } else if (!clock_mhz) {
    e.notes.emplace_back("no SM clock read: the peak's own clock assumed");
  } else if (!e.clock_known) {
    e.notes.push_back(fmt::format("the clock {}'s peak assumes is not known: not normalized", device->key));
  }
  if (auto dram = r.Get(CounterField::kDramActive); dram && *dram >= 0.6 && e.raw < 0.5 * *dram)
    e.memory_bound_hint = true;
  return e;
}

double TileQuantizationEfficiency(std::int64_t m, std::int64_t n, std::int64_t tile_m, std::int64_t tile_n) {
  if (m <= 0 || n <= 0 || tile_m <= 0 || tile_n <= 0) return 1.0;
  const auto padded = [](std::int64_t x, std::int64_t t) { return (x + t - 1) / t * t; };
  return static_cast<double>(m) * static_cast<double>(n) /
         (static_cast<double>(padded(m, tile_m)) * static_cast<double>(padded(n, tile_n)));
}

}  // namespace plasmient::roofline
