// `plasmient analyze --ceiling measured --ceilings FILE` (docs/counters.md, "Measured ceilings"):
// the verdict is judged against the measured figures and says so; the datasheet stays the default.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "test_support.h"

namespace plasmient {
namespace {

namespace fs = std::filesystem;
using testing::PlasmientBinary;
using testing::RunCommand;
using testing::TempDir;

TEST(CeilingsCli, MeasuredCeilingsJudgeTheVerdictAndAreNamed) {
  const fs::path dir = TempDir("ceilings");
  auto synth = RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 1 -o " + (dir / "job").string());
  ASSERT_EQ(synth.exit_code, 0) << synth.out;
  // 80% of the datasheet's dense BF16 peak of an H100 SXM (989.4 TF): above every synth GEMM's
  // efficiency (at most 78%), so no kernel's useful time reaches its duration; and a bandwidth.
  const fs::path ceilings = dir / "ceilings.json";
  std::ofstream(ceilings) << R"({"schema": "plasmient.ceilings/1", "devices": [
    {"device": "h100_sxm", "name": "NVIDIA H100 80GB HBM3", "measured_at": "2026-12-03T08:00:00Z",
     "gemm_flops_per_s": {"bf16": 7.9152e14, "fp16": 7.9152e14}, "memory_bandwidth_bytes_per_s": 3e12}]})";
  auto analyze = [&](const std::string& flags, const std::string& name) {
    return RunCommand(PlasmientBinary() + " analyze " + (dir / "job").string() + " -q " + flags + " --json " +
                      (dir / name).string());
  };
  auto datasheet = analyze("--gpu h100_sxm", "datasheet.json");
  ASSERT_EQ(datasheet.exit_code, 0) << datasheet.out;
  auto measured =
      analyze("--gpu h100_sxm --ceiling measured --ceilings " + ceilings.string(), "measured.json");
  ASSERT_EQ(measured.exit_code, 0) << measured.out;

  simdjson::dom::parser p1, p2;
  simdjson::dom::element d = p1.load((dir / "datasheet.json").string()),
                         m = p2.load((dir / "measured.json").string());
  EXPECT_EQ(std::string_view(d["device"]["ceiling"]), "datasheet");
  EXPECT_EQ(std::string_view(m["device"]["ceiling"]), "measured");
  EXPECT_NE(std::string_view(m["device"]["ceiling_source"]).find("2026-12-03T08:00:00Z"),
            std::string_view::npos);
  EXPECT_DOUBLE_EQ(double(d["device"]["peak_flops_per_s"]), 989.4e12);
  EXPECT_DOUBLE_EQ(double(m["device"]["peak_flops_per_s"]), 7.9152e14);
  EXPECT_DOUBLE_EQ(double(m["device"]["memory_bandwidth_bytes_per_s"]), 3e12);
  // Of 80% of the peak, the same work is 1.25 times the fraction (fp32 work keeps the datasheet's).
  const double a_d = double(d["achieved_fraction"]), a_m = double(m["achieved_fraction"]);
  EXPECT_GT(a_d, 0);
  EXPECT_NEAR(a_m / a_d, 1.25, 0.01) << a_d << " " << a_m;

  // A device the file does not hold: refused, not judged against the datasheet in silence.
  auto other = analyze("--gpu a100_sxm_80gb --ceiling measured --ceilings " + ceilings.string(), "a100.json");
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.out.find("no measured ceilings for a100_sxm_80gb"), std::string::npos) << other.out;
  auto no_file = analyze("--gpu h100_sxm --ceiling measured", "none.json");
  EXPECT_NE(no_file.exit_code, 0);
  EXPECT_NE(no_file.out.find("--ceilings FILE"), std::string::npos) << no_file.out;
}

}  // namespace
}  // namespace plasmient
