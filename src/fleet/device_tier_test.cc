#include "fleet/device_tier.h"

#include <unistd.h>

#include <cstdio>

#include <gtest/gtest.h>

#include "ingest/native/native_reader.h"
#include "model/trace_builder.h"
#include "wire/chunk_codec.h"

namespace plasmient::fleet {
namespace {

model::Trace WithSamples() {
  model::TraceBuilder b;
  auto add = [&](TimeNs ts, std::string_view metric, double v) { b.AddSample({ts, 0, metric, v}); };
  add(100, model::kTensorActiveMetric, 20);
  add(200, model::kTensorActiveMetric, 40);
  add(300, model::kTensorActiveMetric, 60);
  add(200, model::kSmActiveMetric, 90);
  add(200, "nvml.sm_clock_mhz", 1980);  // not an activity
  return std::move(b).Finish();
}

// Means of the GPM activities as ratios, over a span or the whole trace; -1 where none.
TEST(DeviceTierTest, MeanActivityOverASpan) {
  model::Trace t = WithSamples();
  RankSample all;
  MeanDeviceActivity(t, kNoTime, kNoTime, all);
  EXPECT_DOUBLE_EQ(all.tensor_active, 0.4);
  EXPECT_DOUBLE_EQ(all.sm_active, 0.9);
  EXPECT_EQ(all.dram_active, -1);
  RankSample window;
  MeanDeviceActivity(t, 150, 300, window);  // [150, 300): the sample at 200 only
  EXPECT_DOUBLE_EQ(window.tensor_active, 0.4);
  RankSample none;
  MeanDeviceActivity(t, 400, 500, none);
  EXPECT_EQ(none.tensor_active, -1);
}

// An entry is a window or device-tier entry only when every file is one.
TEST(DeviceTierTest, EntryKindFromTheHeaders) {
  std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, std::uint32_t flags) {
    auto h = wire::MakeFileHeader(1, 1, flags);
    std::filesystem::path path = dir + "/" + name + std::to_string(getpid());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(&h, sizeof h, 1, f);
    std::fclose(f);
    return path;
  };
  auto window = write("w", wire::kFileWindow | wire::kFileKernels);
  auto samples = write("s", wire::kFileWindow);
  auto whole = write("r", 0);
  EXPECT_EQ(EntryKind({window}, {}), SampleKind::kWindow);
  EXPECT_EQ(EntryKind({samples}, {}), SampleKind::kDeviceTier);
  EXPECT_EQ(EntryKind({whole}, {}), SampleKind::kTrace);
  EXPECT_EQ(EntryKind({window, samples}, {}), SampleKind::kTrace);
  EXPECT_EQ(EntryKind({}, {}), SampleKind::kTrace);
  for (const auto& p : {window, samples, whole}) std::filesystem::remove(p);
}

}  // namespace
}  // namespace plasmient::fleet
