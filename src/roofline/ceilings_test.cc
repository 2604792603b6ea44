#include "roofline/ceilings.h"

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

constexpr std::string_view kFile = R"({
  "schema": "plasmient.ceilings/1",
  "devices": [
    {"device": "h100_sxm", "name": "NVIDIA H100 80GB HBM3", "measured_at": "2026-12-03T08:00:00Z",
     "source": "scripts/gpu-check.sh ceilings",
     "gemm_flops_per_s": {"bf16": 7.2e14, "fp16": 7.3e14, "tf32": 3.6e14, "fp8": 1.3e15, "fp32": 5.1e13},
     "memory_bandwidth_bytes_per_s": 2.95e12, "sm_clock_mhz": 1755}
  ]
})";

TEST(Ceilings, ParseAndWriteBack) {
  auto c = ParseCeilings(kFile, "c.json");
  ASSERT_TRUE(c) << c.error().message;
  const DeviceCeilings* d = c->Find("h100_sxm");
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->flops_per_s[static_cast<int>(PeakKind::kBf16)], 7.2e14);
  EXPECT_DOUBLE_EQ(d->memory_bandwidth_bytes_per_s, 2.95e12);
  EXPECT_DOUBLE_EQ(d->sm_clock_mhz, 1755);
  EXPECT_EQ(c->Find("a100_sxm_80gb"), nullptr);
  auto again = ParseCeilings(CeilingsJson(*c));
  ASSERT_TRUE(again) << again.error().message << "\n" << CeilingsJson(*c);
  EXPECT_EQ(again->devices[0].flops_per_s, d->flops_per_s);
  EXPECT_EQ(again->devices[0].name, d->name);
}

TEST(Ceilings, MeasuredFiguresReplaceOnlyWhatWasMeasured) {
  auto c = ParseCeilings(kFile);
  ASSERT_TRUE(c);
  const DeviceSpec& row = *FindDeviceByKey("h100_sxm")->spec;
  DeviceSpec m = WithMeasuredCeilings(row, c->devices[0]);
  EXPECT_DOUBLE_EQ(PeakFlops(m, Dtype::kBf16, MathMode::kIeeeFp32), 7.2e14);
  EXPECT_DOUBLE_EQ(m.memory_bandwidth_bytes_per_s, 2.95e12);
  EXPECT_DOUBLE_EQ(m.Peak(PeakKind::kFp64), row.Peak(PeakKind::kFp64));  // not measured: datasheet
  EXPECT_EQ(m.key, row.key);
}

TEST(Ceilings, RefusesWhatItCannotUse) {
  EXPECT_FALSE(ParseCeilings(R"({"schema": "plasmient.ceilings/2", "devices": []})"));
  EXPECT_FALSE(ParseCeilings(R"({"schema": "plasmient.ceilings/1"})"));
  EXPECT_FALSE(ParseCeilings(R"({"schema": "plasmient.ceilings/1", "devices": [{"device": "tpu"}]})"));
  EXPECT_FALSE(ParseCeilings(R"({"schema": "plasmient.ceilings/1", "devices": [{"device": "H100"}]})"));
  EXPECT_FALSE(ParseCeilings(
      R"({"schema": "plasmient.ceilings/1", "devices": [{"device": "h100_sxm", "gemm_flops_per_s": {"bf17": 1}}]})"));
  EXPECT_FALSE(ParseCeilings(
      R"({"schema": "plasmient.ceilings/1", "devices": [{"device": "h100_sxm", "gemm_flops_per_s": {"bf16": -1}}]})"));
  EXPECT_FALSE(ParseCeilings("not json"));
  EXPECT_EQ(ParseCeilingKind("measured"), CeilingKind::kMeasured);
  EXPECT_FALSE(ParseCeilingKind("vendor"));
}

}  // namespace
}  // namespace plasmient::roofline
