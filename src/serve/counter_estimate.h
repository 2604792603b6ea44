// The counter model in serve (docs/counters.md): each analysis's rank carries the model's
// uncalibrated estimate over its window W and its device; the daemon pairs a measured window's
// exact figure with it, fits the correction per device model and job, and between windows turns
// a samples file's estimate into the calibrated one with its error band.
#pragma once

#include <cstddef>
#include <string>

#include "roofline/counter_calibration.h"
#include "verdict/verdict.h"

namespace plasmient::serve {

struct RankCounterFigures {
  double uncalibrated = -1;  // the counter model's achieved fraction over W; -1 without pipe activity
  std::string device;        // the device table row, else the trace's device name
};
RankCounterFigures CounterFiguresOf(const verdict::RankVerdict& rank);

class CounterEstimator {
 public:
  explicit CounterEstimator(std::size_t max_keys = 1000) : max_keys_(max_keys) {}

  // A measured analysis (a kernel window, or a trace with device-tier samples) whose counters
  // cover its window: one calibration pair for (device, job).
  void Measured(const std::string& job, const std::string& device, double exact, double uncalibrated,
                double seconds);
  // Between windows: the calibrated estimate of a samples file's uncalibrated one.
  roofline::CalibratedEstimate Between(const std::string& job, const std::string& device,
                                       double uncalibrated) const;
  void Forget(const std::string& job);

 private:
  roofline::CounterCalibration calibration_;
  std::size_t max_keys_;
};

}  // namespace plasmient::serve
