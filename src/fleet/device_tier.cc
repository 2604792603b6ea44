#include "fleet/device_tier.h"

#include <algorithm>

#include "ingest/native/native_reader.h"

namespace plasmient::fleet {
namespace native = ingest::native;

void MeanDeviceActivity(const model::Trace& t, TimeNs from, TimeNs to, RankSample& out) {
  struct Mean {
    std::string_view metric;
    double* field;
    double sum = 0;
    std::int64_t n = 0;
  };
  Mean means[] = {{model::kSmActiveMetric, &out.sm_active},
                  {model::kTensorActiveMetric, &out.tensor_active},
                  {model::kDramActiveMetric, &out.dram_active}};
  for (std::size_t i = 0; i < t.samples.ts_ns.size(); ++i) {
    TimeNs ts = t.samples.ts_ns[i];
    if (from != kNoTime && (ts < from || ts >= to)) continue;
    std::string_view metric = t.Str(t.samples.metric[i]);
    for (Mean& m : means) {
      if (metric != m.metric) continue;
      m.sum += t.samples.value[i];
      ++m.n;
    }
  }
  for (const Mean& m : means) *m.field = m.n > 0 ? m.sum / static_cast<double>(m.n) / 100 : -1;
}

SampleKind EntryKind(const std::vector<std::filesystem::path>& files, const ingest::OpenRules& rules) {
  if (files.empty()) return SampleKind::kTrace;
  bool windows = true, samples = true;
  for (const auto& f : files) {
    native::Coverage c = native::NativeCoverage(f.string(), rules);
    windows = windows && c == native::Coverage::kWindow;
    samples = samples && c == native::Coverage::kSamples;
  }
  return windows ? SampleKind::kWindow : samples ? SampleKind::kDeviceTier : SampleKind::kTrace;
}

Result<std::vector<RankSample>> DeviceTierSamples(const std::vector<std::filesystem::path>& files,
                                                  const ingest::OpenRules& rules) {
  std::vector<RankSample> out;
  for (const auto& f : files) {
    auto t = native::ReadNative(f.string(), rules);
    if (!t) return std::unexpected(t.error());
    RankSample& s = out.emplace_back();
    s.kind = SampleKind::kDeviceTier;
    s.rank = t->info.rank;
    if (!t->devices.empty()) s.gpu = t->devices.front().name;
    MeanDeviceActivity(*t, kNoTime, kNoTime, s);
  }
  return out;
}

Status AddWindowActivity(const std::vector<std::filesystem::path>& files, const ingest::OpenRules& rules,
                         std::vector<RankSample>& samples) {
  for (auto& s : samples) s.kind = SampleKind::kWindow;
  for (const auto& f : files) {
    auto t = native::ReadNative(f.string(), rules);
    if (!t) return std::unexpected(t.error());
    if (t->gpu.size() == 0) continue;
    TimeNs from = *std::min_element(t->gpu.start_ns.begin(), t->gpu.start_ns.end());
    TimeNs to = *std::max_element(t->gpu.end_ns.begin(), t->gpu.end_ns.end());
    for (auto& s : samples) {
      if (s.rank != t->info.rank) continue;
      MeanDeviceActivity(*t, from, to, s);
      s.window_start_ns = from;
    }
  }
  return Ok();
}

}  // namespace plasmient::fleet
