#include "roofline/counter_calibration.h"

#include <algorithm>
#include <cmath>

namespace plasmient::roofline {
namespace {

struct FitSums {
  double xy = 0, xx = 0;
  void Add(const CalibrationPair& p, double sign) {
    xy += sign * p.seconds * p.estimate * p.exact;
    xx += sign * p.seconds * p.estimate * p.estimate;
  }
  double K() const { return xx > 1e-12 ? xy / xx : 1.0; }
};

}  // namespace

CalibrationFit FitCalibration(const std::deque<CalibrationPair>& pairs) {
  CalibrationFit fit;
  fit.pairs = pairs.size();
  FitSums all;
  for (const auto& p : pairs) all.Add(p, 1);
  fit.k = all.K();
  fit.calibrated = pairs.size() >= kMinCalibrationPairs;
  if (!fit.calibrated) {
    fit.k = 1;
    return fit;
  }
  double squares = 0;
  for (const auto& p : pairs) {
    FitSums without = all;
    without.Add(p, -1);
    const double r = p.exact - without.K() * p.estimate;
    fit.residuals.push_back(r);
    squares += r * r;
    fit.max_abs = std::max(fit.max_abs, std::abs(r));
  }
  fit.rms = std::sqrt(squares / static_cast<double>(pairs.size()));
  fit.band = std::max({2 * fit.rms, fit.max_abs, kMinCalibratedBand});
  return fit;
}

void CounterCalibration::AddWindow(const CalibrationKey& key, const CalibrationPair& pair) {
  if (!(pair.seconds > 0) || !(pair.estimate >= 0 && pair.estimate <= 1) || !std::isfinite(pair.exact))
    return;
  Entry& e = fits_[key];
  e.pairs.push_back(pair);
  while (e.pairs.size() > max_pairs_) e.pairs.pop_front();
  e.fit = FitCalibration(e.pairs);
  e.touched = ++clock_;
}

const CalibrationFit& CounterCalibration::Fit(const CalibrationKey& key) const {
  static const CalibrationFit kNone;
  auto it = fits_.find(key);
  return it == fits_.end() ? kNone : it->second.fit;
}

CalibratedEstimate CounterCalibration::Estimate(const CalibrationKey& key, double uncalibrated) const {
  const CalibrationFit& fit = Fit(key);
  CalibratedEstimate e;
  e.uncalibrated = uncalibrated;
  e.k = fit.k;
  e.pairs = fit.pairs;
  e.calibrated = fit.calibrated;
  e.band = fit.band;
  e.achieved = std::clamp(fit.k * uncalibrated, 0.0, 1.0);
  return e;
}

void CounterCalibration::Bound(std::size_t max_keys) {
  while (fits_.size() > max_keys) {
    auto oldest = std::min_element(fits_.begin(), fits_.end(), [](const auto& a, const auto& b) {
      return a.second.touched < b.second.touched;
    });
    fits_.erase(oldest);
  }
}

void CounterCalibration::ForgetWorkload(const std::string& workload) {
  std::erase_if(fits_, [&](const auto& kv) { return kv.first.workload == workload; });
}

}  // namespace plasmient::roofline
