// The device tier's samples indexed for spans: how busy a kernel's device was while it ran
// (docs/verdict.md, "Device activity beside each kernel").
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "base/time_units.h"
#include "model/trace.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

class DeviceActivityIndex {
 public:
  explicit DeviceActivityIndex(const model::Trace& t);

  bool empty() const { return series_.empty(); }
  // Adds the samples of `device` with from <= ts < to: a sample is read as the activity of the
  // interval it closes, so the samples inside a call are those the call's span produced.
  void AddSpan(std::int32_t device, TimeNs from, TimeNs to, DeviceActivity& out) const;

 private:
  struct Series {
    std::vector<TimeNs> ts_ns;   // sorted
    std::vector<double> prefix;  // prefix[i]: sum of the first i values
  };
  std::map<std::pair<std::int32_t, DeviceMetric>, Series> series_;
};

// The device tier of a whole trace over [from, to) (every sample when `from` is kNoTime), all its
// devices together: a rank's activity over its window W (RankVerdict::device_tier).
DeviceActivity DeviceActivityOver(const model::Trace& t, TimeNs from, TimeNs to);

}  // namespace plasmient::verdict
