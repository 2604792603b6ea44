#include "verdict/device_activity.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace plasmient::verdict {
namespace {

constexpr std::string_view kSmClockName = "nvml.sm_clock_mhz";

std::optional<DeviceMetric> MetricOf(std::string_view name) {
  if (name == model::kSmActiveMetric) return DeviceMetric::kSmActive;
  if (name == model::kTensorActiveMetric) return DeviceMetric::kTensorActive;
  if (name == model::kDramActiveMetric) return DeviceMetric::kDramActive;
  if (name == kSmClockName) return DeviceMetric::kSmClockMhz;
  return std::nullopt;
}

}  // namespace

DeviceActivityIndex::DeviceActivityIndex(const model::Trace& t) {
  const model::Samples& s = t.samples;
  std::map<std::pair<std::int32_t, DeviceMetric>, std::vector<std::pair<TimeNs, double>>> rows;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto metric = MetricOf(t.Str(s.metric[i]));
    if (metric) rows[{s.device[i], *metric}].emplace_back(s.ts_ns[i], s.value[i]);
  }
  for (auto& [key, points] : rows) {
    std::stable_sort(points.begin(), points.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Series& out = series_[key];
    out.ts_ns.reserve(points.size());
    out.prefix.reserve(points.size() + 1);
    out.prefix.push_back(0);
    for (const auto& [ts, value] : points) {
      out.ts_ns.push_back(ts);
      out.prefix.push_back(out.prefix.back() + value);
    }
  }
}

void DeviceActivityIndex::AddSpan(std::int32_t device, TimeNs from, TimeNs to, DeviceActivity& out) const {
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    auto it = series_.find({device, static_cast<DeviceMetric>(m)});
    if (it == series_.end()) continue;
    const Series& s = it->second;
    auto lo = std::lower_bound(s.ts_ns.begin(), s.ts_ns.end(), from) - s.ts_ns.begin();
    auto hi = std::lower_bound(s.ts_ns.begin(), s.ts_ns.end(), to) - s.ts_ns.begin();
    if (hi <= lo) continue;
    out.sum_pct[m] += s.prefix[static_cast<std::size_t>(hi)] - s.prefix[static_cast<std::size_t>(lo)];
    out.samples[m] += hi - lo;
  }
}

DeviceActivity DeviceActivityOver(const model::Trace& t, TimeNs from, TimeNs to) {
  const model::Samples& s = t.samples;
  DeviceActivity out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (from != kNoTime && (s.ts_ns[i] < from || s.ts_ns[i] >= to)) continue;
    auto metric = MetricOf(t.Str(s.metric[i]));
    if (!metric) continue;
    out.sum_pct[static_cast<std::size_t>(*metric)] += s.value[i];
    ++out.samples[static_cast<std::size_t>(*metric)];
  }
  return out;
}

}  // namespace plasmient::verdict
