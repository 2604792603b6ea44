#include "roofline/device_table.h"

#include <set>

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

std::string_view KeyOf(const Result<DeviceMatch>& m) {
  return m ? m->spec->key : std::string_view("<error>");
}

Result<DeviceMatch> Match(std::string_view name, int sms, int major, int minor, std::int64_t memory = 0,
                          int warp = 0) {
  return MatchDevice({.name = name,
                      .sm_count = sms,
                      .cc_major = major,
                      .cc_minor = minor,
                      .memory_bytes = memory,
                      .warp_size = warp});
}

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

TEST(DeviceTable, EveryRowHasBandwidthAndATensorOrVectorPeak) {
  std::set<std::string_view> keys;
  for (const DeviceSpec& d : DeviceTable()) {
    EXPECT_TRUE(keys.insert(d.key).second) << d.key;
    EXPECT_GT(d.memory_bandwidth_bytes_per_s, 1e11) << d.key;
    EXPECT_GT(d.Peak(PeakKind::kFp32), 1e12) << d.key;
    EXPECT_GT(d.Peak(PeakKind::kFp16), d.Peak(PeakKind::kFp32)) << d.key;
    EXPECT_GT(d.price_per_gpu_hour, 0) << d.key;
  }
  EXPECT_GE(keys.size(), 21u);  // every datasheet row, 40 GB A100s, per-GCD MI200 rows, H20, GB200, MI325X
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
  EXPECT_EQ(KeyOf(Match("NVIDIA A100-SXM4-80GB", 108, 8, 0, 84990623744)), "a100_sxm_80gb");
  EXPECT_EQ(KeyOf(Match("NVIDIA A100-PG509-200", 108, 8, 0, 42297524224)), "a100_sxm_40gb");
  EXPECT_EQ(KeyOf(Match("NVIDIA A100-PG509-200", 108, 8, 0)), "a100_sxm_40gb");
  EXPECT_EQ(KeyOf(Match("Tesla V100-SXM2-32GB", 80, 7, 0)), "v100_sxm2");
  EXPECT_EQ(KeyOf(Match("Tesla V100-DGXS-32GB", 80, 7, 0)), "v100_sxm2");
  EXPECT_EQ(KeyOf(Match("NVIDIA H100 80GB HBM3", 132, 9, 0)), "h100_sxm");
  EXPECT_EQ(KeyOf(Match("NVIDIA H100", 132, 9, 0)), "h100_sxm");
  EXPECT_EQ(KeyOf(Match("NVIDIA H100", 114, 9, 0)), "h100_pcie");
  EXPECT_EQ(KeyOf(Match("NVIDIA H100 NVL", 132, 9, 0)), "h100_nvl");
  EXPECT_EQ(KeyOf(Match("AMD Instinct MI300X", 304, 9, 4)), "mi300x");
  EXPECT_EQ(KeyOf(Match("AMD Radeon Graphics", 104, 9, 0)), "mi250_gcd");
  // An MI210 has one MI250 GCD's signature (gfx90a, 104 CUs, 64 GB): its name makes it an MI210.
  EXPECT_EQ(KeyOf(Match("AMD Instinct MI210", 104, 9, 0)), "mi210");
  EXPECT_EQ(KeyOf(Match("AMD Instinct MI210", 0, 0, 0)), "mi210");
  // Export and Grace Hopper parts are their own rows, not the H100/H200 their names resemble.
  EXPECT_EQ(KeyOf(Match("NVIDIA H800", 132, 9, 0, 85'520'809'984)), "h800_sxm");
  EXPECT_EQ(KeyOf(Match("NVIDIA GH200 480GB", 132, 9, 0, 101'468'602'368)), "gh200_96gb");
  EXPECT_EQ(KeyOf(Match("NVIDIA GH200 144G HBM3e", 132, 9, 0, 151'000'000'000)), "gh200_144gb");
  EXPECT_EQ(KeyOf(Match("Tesla T4", 40, 7, 5)), "t4");
  EXPECT_EQ(KeyOf(Match("", 40, 7, 5)), "t4");
  EXPECT_EQ(KeyOf(Match("AMD Radeon Graphics", 110, 9, 0)), "mi250x_gcd");
  EXPECT_EQ(KeyOf(Match("AMD Radeon Graphics", 304, 9, 4)), "mi300x");
}

TEST(MatchDevice, OtherNamesAndCapabilityFallback) {
  EXPECT_EQ(KeyOf(Match("NVIDIA H200", 132, 9, 0)), "h200_sxm");
  EXPECT_EQ(KeyOf(Match("NVIDIA B200", 148, 10, 0)), "b200_hgx");
  EXPECT_EQ(KeyOf(Match("NVIDIA A100 80GB PCIe", 108, 8, 0)), "a100_pcie_80gb");
  EXPECT_EQ(KeyOf(Match("NVIDIA L40S", 142, 8, 9)), "l40s");
  EXPECT_EQ(KeyOf(Match("NVIDIA L4", 58, 8, 9)), "l4");
  EXPECT_EQ(KeyOf(Match("NVIDIA A10G", 80, 8, 6)), "a10g");
  EXPECT_EQ(KeyOf(Match("NVIDIA A10", 72, 8, 6)), "a10");
  EXPECT_EQ(KeyOf(Match("", 108, 8, 0)), "a100_sxm_80gb");
  auto m = Match("NVIDIA H100", 132, 9, 0);
  ASSERT_TRUE(m);
  EXPECT_NE(m->reason.find("132 SMs"), std::string::npos) << m->reason;
}

TEST(MatchDevice, UnknownDevicesAreErrors) {
  EXPECT_FALSE(Match("NVIDIA GeForce RTX 4090", 128, 8, 9));
  EXPECT_FALSE(Match("", 0, 0, 0));
  EXPECT_FALSE(Match("AMD Radeon Graphics", 60, 10, 3));  // a consumer RDNA part
  EXPECT_FALSE(Match("NVIDIA H100", 100, 9, 0));
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

TEST(MatchDevice, FieldsDecideWhenTheNameIsEmpty) {
  // The ROCm trace with an empty name: gfx942 (9.4), 304 CUs, warp 64, 192 GiB is an MI300X.
  auto mi300 = Match("", 304, 9, 4, 192 * kGiB, 64);
  ASSERT_TRUE(mi300) << mi300.error().message;
  EXPECT_EQ(mi300->spec->key, "mi300x");
  EXPECT_NE(mi300->reason.find("304"), std::string::npos) << mi300->reason;
  EXPECT_EQ(KeyOf(Match("", 304, 9, 4, 256 * kGiB, 64)), "mi325x");
  EXPECT_EQ(KeyOf(Match("", 304, 9, 4)), "mi300x");                     // memory unknown: the base part
  EXPECT_EQ(KeyOf(Match("", 110, 9, 0, 64 * kGiB, 64)), "mi250x_gcd");  // gfx90a, not Hopper
  EXPECT_EQ(KeyOf(Match("", 132, 9, 0, 85018279936, 32)), "h100_sxm");
  EXPECT_EQ(KeyOf(Match("", 132, 9, 0, 102'085'492'736, 32)), "h100_sxm");  // 96 GB part, as in a trace
  EXPECT_EQ(KeyOf(Match("", 132, 9, 0, 150'754'820'096, 32)), "h200_sxm");
  EXPECT_EQ(KeyOf(Match("", 78, 9, 0, 102'625'181'696, 32)), "h20");
  EXPECT_EQ(KeyOf(Match("", 108, 8, 0, 42'297'524'224)), "a100_sxm_40gb");
  EXPECT_EQ(KeyOf(Match("", 148, 10, 0)), "b200_hgx");
  // Warp 64 is AMD: a Hopper-shaped signature with warp 64 matches nothing rather than an H100.
  EXPECT_FALSE(Match("", 132, 9, 0, 80 * kGiB, 64));
  // Warp 32 is NVIDIA: an MI300X-shaped signature with warp 32 matches nothing.
  EXPECT_FALSE(Match("", 304, 9, 4, 192 * kGiB, 32));
}

TEST(MatchDevice, NewRowsByName) {
  EXPECT_EQ(KeyOf(Match("AMD Instinct MI325X", 304, 9, 4)), "mi325x");
  EXPECT_EQ(KeyOf(Match("NVIDIA H20", 78, 9, 0)), "h20");
  EXPECT_EQ(KeyOf(Match("NVIDIA GB200", 152, 10, 0)), "gb200");
  EXPECT_EQ(KeyOf(Match("NVIDIA B200", 148, 10, 0)), "b200_hgx");
  EXPECT_EQ(KeyOf(Match("NVIDIA H100 PCIe", 114, 9, 0)), "h100_pcie");
  EXPECT_EQ(KeyOf(Match("NVIDIA H100 NVL", 132, 9, 0, 100'485'038'080)), "h100_nvl");
  EXPECT_EQ(KeyOf(Match("NVIDIA H200", 132, 9, 0)), "h200_sxm");  // not the H20
}

TEST(PeakPipe, EachRowRunsADtypeOnlyOnPipesItHas) {
  const DeviceSpec& v100 = *FindDeviceByKey("v100")->spec;
  EXPECT_EQ(PeakPipe(v100, Dtype::kBf16, MathMode::kIeeeFp32), PeakKind::kFp32);
  EXPECT_EQ(PeakLabel(v100, Dtype::kBf16, MathMode::kIeeeFp32), "bf16 on fp32 (no bf16 pipe)");
  EXPECT_EQ(PeakLabel(v100, Dtype::kFp16, MathMode::kIeeeFp32), "fp16");
  EXPECT_EQ(PeakLabel(v100, Dtype::kUnknown, MathMode::kIeeeFp32), "fp16");  // its only tensor pipe
  EXPECT_DOUBLE_EQ(PeakFlops(v100, Dtype::kUnknown, MathMode::kIeeeFp32), 125e12);
  const DeviceSpec& b200 = *FindDeviceByKey("b200")->spec;
  EXPECT_DOUBLE_EQ(PeakFlops(b200, Dtype::kFp4, MathMode::kIeeeFp32), 9000e12);
  EXPECT_EQ(PeakLabel(b200, Dtype::kFp4, MathMode::kIeeeFp32), "fp4");
  const DeviceSpec& h100 = *FindDeviceByKey("h100")->spec;
  EXPECT_DOUBLE_EQ(PeakFlops(h100, Dtype::kFp4, MathMode::kIeeeFp32), 1978.9e12);  // upcast to FP8
  EXPECT_EQ(PeakLabel(h100, Dtype::kFp4, MathMode::kIeeeFp32), "fp4 on fp8 (no fp4 pipe)");
  EXPECT_EQ(PeakLabel(h100, Dtype::kFp32, MathMode::kTf32), "fp32");
  EXPECT_EQ(PeakLabel(h100, Dtype::kInt64, MathMode::kIeeeFp32), "int64");
  const DeviceSpec& a100 = *FindDeviceByKey("a100")->spec;
  EXPECT_EQ(PeakLabel(a100, Dtype::kFp8, MathMode::kIeeeFp32), "fp8 on bf16 (no fp8 pipe)");
}

TEST(DeviceFromKernelNames, NewestArchitectureTagWins) {
  std::vector<std::string_view> hopper = {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn",
                                          "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"};
  ASSERT_NE(DeviceFromKernelNames(hopper), nullptr);
  EXPECT_EQ(DeviceFromKernelNames(hopper)->key, "h100_sxm");
  std::vector<std::string_view> volta = {"volta_sgemm_128x64_nn",
                                         "void at::native::vectorized_elementwise_kernel"};
  ASSERT_NE(DeviceFromKernelNames(volta), nullptr);
  EXPECT_EQ(DeviceFromKernelNames(volta)->key, "v100_sxm2");
  std::vector<std::string_view> none = {"void at::native::vectorized_elementwise_kernel", "Cijk_Ailk_Bljk"};
  EXPECT_EQ(DeviceFromKernelNames(none), nullptr);
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
