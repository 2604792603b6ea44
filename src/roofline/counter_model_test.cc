#include "roofline/counter_model.h"

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

const DeviceSpec& Row(std::string_view key) {
  auto m = FindDeviceByKey(key);
  EXPECT_TRUE(m.has_value());
  return *m->spec;
}

TEST(CounterModel, PeakClocksFromPerSmRates) {
  // docs/gpu-peaks.md: H100 SXM tensor figures assume 1.83 GHz, FP32/FP64 1.98 GHz.
  EXPECT_NEAR(PeakClockGhz(Row("h100_sxm"), PeakKind::kBf16), 1.830, 0.001);
  EXPECT_NEAR(PeakClockGhz(Row("h100_sxm"), PeakKind::kFp8), 1.830, 0.001);
  EXPECT_NEAR(PeakClockGhz(Row("h100_sxm"), PeakKind::kFp32), 1.983, 0.001);
  EXPECT_NEAR(PeakClockGhz(Row("h100_pcie"), PeakKind::kBf16), 1.620, 0.001);
  EXPECT_NEAR(PeakClockGhz(Row("a100_sxm_80gb"), PeakKind::kBf16), 1.410, 0.001);
  EXPECT_DOUBLE_EQ(PeakClockGhz(Row("l40s"), PeakKind::kBf16), 2.52);   // the boost clock
  EXPECT_DOUBLE_EQ(PeakClockGhz(Row("b200_hgx"), PeakKind::kBf16), 0);  // not given
}

TEST(CounterModel, NamesOfEverySource) {
  CounterReading r;
  SetCounter(r, "gpm.tensor_util_pct", 42);
  SetCounter(r, "DCGM_FI_PROF_SM_ACTIVE", 0.9);
  SetCounter(r, "DCGM_FI_DEV_SM_CLOCK", 1755);
  SetCounter(r, "gpm.dram_bw_util_pct", 130);  // clamped
  SetCounter(r, "nvml.power_mw", 1);           // not read
  EXPECT_DOUBLE_EQ(*r.Get(CounterField::kTensorActive), 0.42);
  EXPECT_DOUBLE_EQ(*r.Get(CounterField::kSmActive), 0.9);
  EXPECT_DOUBLE_EQ(*r.Get(CounterField::kSmClockMhz), 1755);
  EXPECT_DOUBLE_EQ(*r.Get(CounterField::kDramActive), 1.0);
  EXPECT_EQ(CounterFieldFromName("DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE"), CounterField::kHmmaActive);
  EXPECT_EQ(CounterFieldFromName("nvml.power_mw"), std::nullopt);
}

TEST(CounterModel, TensorActivityTimesClockOverThePeaksClock) {
  CounterReading r;
  r.Set(CounterField::kTensorActive, 0.6);
  r.Set(CounterField::kSmActive, 0.95);
  r.Set(CounterField::kSmClockMhz, 1464);  // 80% of 1.83 GHz: throttled
  CounterEstimate e = EstimateFromCounters(r, &Row("h100_sxm"), Dtype::kBf16);
  ASSERT_TRUE(e.valid);
  EXPECT_TRUE(e.clock_known);
  EXPECT_NEAR(e.clock_factor, 0.8, 1e-3);
  EXPECT_NEAR(e.achieved, 0.48, 1e-3);
  EXPECT_EQ(e.peak, PeakKind::kBf16);
  EXPECT_FALSE(e.bounded_by_sm);
}

TEST(CounterModel, TileQuantizationScalesTheTensorTerm) {
  // M = 129 on 128-row tiles: two tile rows, one nearly all padding.
  EXPECT_NEAR(TileQuantizationEfficiency(129, 4096), 129.0 / 256, 1e-12);
  EXPECT_DOUBLE_EQ(TileQuantizationEfficiency(4096, 4096), 1.0);
  EXPECT_DOUBLE_EQ(TileQuantizationEfficiency(0, 4096), 1.0);
  CounterReading r;
  r.Set(CounterField::kTensorActive, 0.8);
  CounterEstimate e = EstimateFromCounters(r, &Row("h100_sxm"), Dtype::kBf16, MathMode::kIeeeFp32,
                                           {.tile_efficiency = TileQuantizationEfficiency(129, 4096)});
  EXPECT_NEAR(e.achieved, 0.8 * 129.0 / 256, 1e-9);
  EXPECT_FALSE(e.clock_known);  // no clock read: the peak's clock assumed
  EXPECT_FALSE(e.notes.empty());
}

TEST(CounterModel, TensorOverSmActivityIsCutToIt) {
  CounterReading r;
  r.Set(CounterField::kTensorActive, 0.7);
  r.Set(CounterField::kSmActive, 0.5);
  CounterEstimate e = EstimateFromCounters(r, &Row("a100_sxm_80gb"), Dtype::kFp16);
  EXPECT_TRUE(e.bounded_by_sm);
  EXPECT_NEAR(e.achieved, 0.5, 1e-12);
}

TEST(CounterModel, PerDtypeClassAtEachPipesPeak) {
  // FP8 work on an H100: the half-precision class runs at the FP8 peak; the integer tensor pipe
  // at the INT8 peak (the same on Hopper); the fp64 tensor pipe at 67/1978.9 of it.
  CounterReading r;
  r.Set(CounterField::kHmmaActive, 0.4);
  r.Set(CounterField::kImmaActive, 0.1);
  r.Set(CounterField::kDmmaActive, 0.2);
  r.Set(CounterField::kTensorActive, 0.7);  // the split wins over the sum
  const DeviceSpec& h100 = Row("h100_sxm");
  CounterEstimate e = EstimateFromCounters(r, &h100, Dtype::kFp8);
  ASSERT_EQ(e.terms.size(), 3u);
  EXPECT_EQ(e.peak, PeakKind::kFp8);
  EXPECT_NEAR(e.achieved, 0.4 + 0.1 + 0.2 * 67 / 1978.9, 1e-9);
  // BF16 work reading the same pipes: FP8's class would be counted at the BF16 peak.
  CounterEstimate bf = EstimateFromCounters(r, &h100, Dtype::kBf16);
  EXPECT_NEAR(bf.achieved, std::min(1.0, 0.4 + 0.1 * 1978.9 / 989.4 + 0.2 * 67 / 989.4), 1e-9);
}

TEST(CounterModel, Fp32WorkReadsTheFp32Pipe) {
  CounterReading r;
  r.Set(CounterField::kFp32Active, 0.3);
  r.Set(CounterField::kTensorActive, 0.0);
  r.Set(CounterField::kSmClockMhz, 1980);
  CounterEstimate e = EstimateFromCounters(r, &Row("h100_sxm"), Dtype::kFp32, MathMode::kIeeeFp32);
  EXPECT_EQ(e.peak, PeakKind::kFp32);
  // The tensor term (at the BF16 peak, 989.4/67 of FP32's) is zero; FP32 at its 1.98 GHz clock.
  EXPECT_NEAR(e.achieved, 0.3 * 1.98 / 1.9830, 1e-3);
}

TEST(CounterModel, NoPipeNoEstimate) {
  CounterReading r;
  r.Set(CounterField::kSmActive, 0.9);
  r.Set(CounterField::kDramActive, 0.9);
  CounterEstimate e = EstimateFromCounters(r, &Row("h100_sxm"), Dtype::kBf16);
  EXPECT_FALSE(e.valid);
  EXPECT_EQ(e.achieved, 0);
}

TEST(CounterModel, UnknownDeviceIsTheActivityAlone) {
  CounterReading r;
  r.Set(CounterField::kTensorActive, 0.3);
  r.Set(CounterField::kDramActive, 0.8);
  r.Set(CounterField::kSmClockMhz, 1000);
  CounterEstimate e = EstimateFromCounters(r, nullptr, Dtype::kBf16);
  EXPECT_TRUE(e.valid);
  EXPECT_DOUBLE_EQ(e.achieved, 0.3);
  EXPECT_FALSE(e.clock_known);
  EXPECT_TRUE(e.memory_bound_hint);
}

}  // namespace
}  // namespace plasmient::roofline
