#include "serve/counter_estimate.h"

namespace plasmient::serve {

RankCounterFigures CounterFiguresOf(const verdict::RankVerdict& rank) {
  RankCounterFigures f;
  if (rank.counter_estimate) f.uncalibrated = rank.counter_estimate->achieved;
  f.device = !rank.device.key.empty() ? rank.device.key : rank.device.trace_name;
  return f;
}

void CounterEstimator::Measured(const std::string& job, const std::string& device, double exact,
                                double uncalibrated, double seconds) {
  if (uncalibrated < 0) return;
  calibration_.AddWindow({device, job}, {.exact = exact, .estimate = uncalibrated, .seconds = seconds});
  calibration_.Bound(max_keys_);
}

roofline::CalibratedEstimate CounterEstimator::Between(const std::string& job, const std::string& device,
                                                       double uncalibrated) const {
  return calibration_.Estimate({device, job}, uncalibrated);
}

void CounterEstimator::Forget(const std::string& job) { calibration_.ForgetWorkload(job); }

}  // namespace plasmient::serve
