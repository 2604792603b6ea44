#include "roofline/device_table.h"

#include <set>

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

std::string_view KeyOf(const Result<DeviceMatch>& m) {
  return m ? m->spec->key : std::string_view("<error>");
}

TEST(DeviceTable, EveryRowHasBandwidthAndATensorOrVectorPeak) {
  std::set<std::string_view> keys;
  for (const DeviceSpec& d : DeviceTable()) {
    EXPECT_TRUE(keys.insert(d.key).second) << d.key;
    EXPECT_GT(d.memory_bandwidth_bytes_per_s, 1e11) << d.key;
    EXPECT_GT(d.Peak(PeakKind::kFp32), 1e12) << d.key;
    EXPECT_GT(d.Peak(PeakKind::kFp16), d.Peak(PeakKind::kFp32)) << d.key;
    EXPECT_GT(d.price_per_gpu_hour, 0) << d.key;
  }
  EXPECT_GE(keys.size(), 14u);  // every gpu-peaks row, plus 40 GB A100s and per-GCD MI200 rows
}

TEST(DeviceTable, DatasheetFigures) {
  auto h100 = FindDeviceByKey("h100_sxm");
  ASSERT_TRUE(h100);
  EXPECT_DOUBLE_EQ(h100->spec->Peak(PeakKind::kBf16), 989.4e12);
  EXPECT_DOUBLE_EQ(h100->spec->memory_bandwidth_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h100->spec->gpu_link_bytes_per_s, 900e9);
  EXPECT_EQ(h100->spec->sm_count, 132);
  auto gcd = FindDeviceByKey("mi250x_gcd");
  ASSERT_TRUE(gcd);
  EXPECT_DOUBLE_EQ(gcd->spec->Peak(PeakKind::kBf16) * 2, 383e12);  // half of the OAM
}

TEST(PeakFlops, PerDtypeAndMathMode) {
  const DeviceSpec& h100 = *FindDeviceByKey("h100_sxm")->spec;
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kBf16, MathMode::kIeeeFp32), 989.4e12);
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kFp16, MathMode::kIeeeFp32), 989.4e12);
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kFp32, MathMode::kIeeeFp32), 67e12);
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kFp32, MathMode::kTf32), 494.7e12);
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kFp8, MathMode::kIeeeFp32), 1978.9e12);
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kInt8, MathMode::kIeeeFp32), 1978.9e12);
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kFp64, MathMode::kIeeeFp32), 67e12);  // FP64 tensor
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kUnknown, MathMode::kIeeeFp32), 989.4e12);
}

TEST(PeakFlops, FallbacksWhereAPipeIsMissing) {
  const DeviceSpec& v100 = *FindDeviceByKey("v100")->spec;
  EXPECT_DOUBLE_EQ(PeakFlops(v100, Dtype::kBf16, MathMode::kIeeeFp32), 15.7e12);  // no BF16 tensor path
  EXPECT_DOUBLE_EQ(PeakFlops(v100, Dtype::kFp16, MathMode::kIeeeFp32), 125e12);
  EXPECT_DOUBLE_EQ(PeakFlops(v100, Dtype::kFp32, MathMode::kTf32), 15.7e12);  // no TF32
  const DeviceSpec& a100 = *FindDeviceByKey("a100")->spec;
  EXPECT_DOUBLE_EQ(PeakFlops(a100, Dtype::kFp8, MathMode::kIeeeFp32), 312e12);  // no FP8: BF16 pipe
  const DeviceSpec& mi250x = *FindDeviceByKey("mi250x")->spec;
  EXPECT_DOUBLE_EQ(PeakFlops(mi250x, Dtype::kFp32, MathMode::kIeeeFp32), 95.7e12);  // packed/matrix FP32
  EXPECT_DOUBLE_EQ(PeakFlops(mi250x, Dtype::kInt64, MathMode::kIeeeFp32), 47.9e12);
}

TEST(MathModeChoice, DefaultsUserAndKernelEvidence) {
  EXPECT_EQ(ChooseMathMode(Fp32MathOption::kAuto, false, "ampere_sgemm_128x64_tn"), MathMode::kIeeeFp32);
  EXPECT_EQ(ChooseMathMode(Fp32MathOption::kAuto, true, "implicit_convolve_sgemm"), MathMode::kTf32);
  EXPECT_EQ(ChooseMathMode(Fp32MathOption::kTf32, false, "ampere_sgemm_128x64_tn"), MathMode::kTf32);
  EXPECT_EQ(ChooseMathMode(Fp32MathOption::kIeee, true, ""), MathMode::kIeeeFp32);
  EXPECT_EQ(
      ChooseMathMode(Fp32MathOption::kIeee, false, "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4"),
      MathMode::kTf32);
}

TEST(MatchDevice, NamesSeenInTraces) {
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA A100-SXM4-80GB", 108, 8, 0, 84990623744)), "a100_sxm_80gb");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA A100-PG509-200", 108, 8, 0, 42297524224)), "a100_sxm_40gb");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA A100-PG509-200", 108, 8, 0)), "a100_sxm_40gb");
  EXPECT_EQ(KeyOf(MatchDevice("Tesla V100-SXM2-32GB", 80, 7, 0)), "v100_sxm2");
  EXPECT_EQ(KeyOf(MatchDevice("Tesla V100-DGXS-32GB", 80, 7, 0)), "v100_sxm2");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA H100 80GB HBM3", 132, 9, 0)), "h100_sxm");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA H100", 132, 9, 0)), "h100_sxm");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA H100", 114, 9, 0)), "h100_pcie");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA H100 NVL", 132, 9, 0)), "h100_nvl");
  EXPECT_EQ(KeyOf(MatchDevice("AMD Instinct MI300X", 304, 9, 4)), "mi300x");
  EXPECT_EQ(KeyOf(MatchDevice("AMD Radeon Graphics", 104, 9, 0)), "mi250_gcd");
  EXPECT_EQ(KeyOf(MatchDevice("AMD Radeon Graphics", 110, 9, 0)), "mi250x_gcd");
  EXPECT_EQ(KeyOf(MatchDevice("AMD Radeon Graphics", 304, 9, 4)), "mi300x");
}

TEST(MatchDevice, OtherNamesAndCapabilityFallback) {
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA H200", 132, 9, 0)), "h200_sxm");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA B200", 148, 10, 0)), "b200_hgx");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA A100 80GB PCIe", 108, 8, 0)), "a100_pcie_80gb");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA L40S", 142, 8, 9)), "l40s");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA L4", 58, 8, 9)), "l4");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA A10G", 80, 8, 6)), "a10g");
  EXPECT_EQ(KeyOf(MatchDevice("NVIDIA A10", 72, 8, 6)), "a10");
  EXPECT_EQ(KeyOf(MatchDevice("", 108, 8, 0)), "a100_sxm_80gb");
  auto m = MatchDevice("NVIDIA H100", 132, 9, 0);
  ASSERT_TRUE(m);
  EXPECT_NE(m->reason.find("132 SMs"), std::string::npos) << m->reason;
}

TEST(MatchDevice, UnknownDevicesAreErrors) {
  EXPECT_FALSE(MatchDevice("NVIDIA GeForce RTX 4090", 128, 8, 9));
  EXPECT_FALSE(MatchDevice("", 0, 0, 0));
  EXPECT_FALSE(MatchDevice("AMD Radeon Graphics", 60, 10, 3));  // a consumer RDNA part
  EXPECT_FALSE(MatchDevice("NVIDIA H100", 100, 9, 0));
}

TEST(FindDeviceByKey, KeysAliasesAndNames) {
  EXPECT_EQ(KeyOf(FindDeviceByKey("h100_sxm")), "h100_sxm");
  EXPECT_EQ(KeyOf(FindDeviceByKey("H100")), "h100_sxm");
  EXPECT_EQ(KeyOf(FindDeviceByKey("h100-pcie")), "h100_pcie");
  EXPECT_EQ(KeyOf(FindDeviceByKey("a100")), "a100_sxm_80gb");
  EXPECT_EQ(KeyOf(FindDeviceByKey("MI300X")), "mi300x");
  EXPECT_EQ(KeyOf(FindDeviceByKey("NVIDIA A100-SXM4-80GB")), "a100_sxm_80gb");
  auto bad = FindDeviceByKey("tpu_v5");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("tpu_v5"), std::string::npos);
}

TEST(PeakTable, OneLinePerDevice) {
  std::string table = FormatPeakTable();
  std::size_t lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_EQ(lines, DeviceTable().size() + 2);  // header and footnote
  EXPECT_NE(table.find("989.4"), std::string::npos);
  EXPECT_NE(table.find("mi250x_gcd"), std::string::npos);
}

}  // namespace
}  // namespace plasmient::roofline
