// Calibration of the counter model by the kernel windows (docs/counters.md, "Calibration by the
// windows"): where a window's exact achieved fraction and the counter model's estimate cover the
// same seconds on the same GPU they make a pair; per device model and workload class (the job)
// the pairs fit one factor k (exact ≈ k × estimate) and their leave-one-out residuals give the
// error band of the calibrated estimate between windows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace plasmient::roofline {

// What one calibration is fitted for: the device table row ("h100_sxm", or the trace's device
// name when no row) and the workload class (the job).
struct CalibrationKey {
  std::string device, workload;
  auto operator<=>(const CalibrationKey&) const = default;
};

struct CalibrationPair {
  double exact = 0;     // the window's achieved fraction
  double estimate = 0;  // the counter model's, uncalibrated, over the same seconds
  double seconds = 0;   // the weight: the window's GPU-seconds
};

// Pairs fewer than this leave the estimate uncalibrated (k = 1, the uncalibrated band).
inline constexpr std::size_t kMinCalibrationPairs = 3;
// The band of an uncalibrated estimate: the counter method's error on real jobs is several points
// and unbounded per job (docs/counters.md).
inline constexpr double kUncalibratedBand = 0.10;
inline constexpr double kMinCalibratedBand = 0.005;

struct CalibrationFit {
  double k = 1;
  std::size_t pairs = 0;
  bool calibrated = false;  // pairs ≥ kMinCalibrationPairs
  // Leave-one-out residuals (exact − k₋ᵢ × estimate), oldest first: what the fit would have missed
  // on a window it had not seen.
  std::vector<double> residuals;
  double rms = 0, max_abs = 0;
  double band = kUncalibratedBand;  // max(2·rms, max |residual|, kMinCalibratedBand) when calibrated
};

// The fit of `pairs` (weighted by seconds): k = Σ w·x·y / Σ w·x². A set whose estimates are all
// zero (an idle GPU) keeps k = 1.
CalibrationFit FitCalibration(const std::deque<CalibrationPair>& pairs);

struct CalibratedEstimate {
  double uncalibrated = 0, achieved = 0;  // achieved = clamp(k × uncalibrated, 0, 1)
  double band = kUncalibratedBand;        // ± this, as a fraction
  double k = 1;
  std::size_t pairs = 0;
  bool calibrated = false;
};

class CounterCalibration {
 public:
  explicit CounterCalibration(std::size_t max_pairs = 32) : max_pairs_(max_pairs) {}

  // A window with counters over the same seconds. Pairs with no seconds or an estimate outside
  // [0, 1] are not kept.
  void AddWindow(const CalibrationKey& key, const CalibrationPair& pair);
  const CalibrationFit& Fit(const CalibrationKey& key) const;
  CalibratedEstimate Estimate(const CalibrationKey& key, double uncalibrated) const;
  std::size_t keys() const { return fits_.size(); }
  // Keys beyond `max_keys` are dropped, oldest added first.
  void Bound(std::size_t max_keys);
  // Every key of one workload (a job no longer tracked).
  void ForgetWorkload(const std::string& workload);

 private:
  struct Entry {
    std::deque<CalibrationPair> pairs;
    CalibrationFit fit;
    std::uint64_t touched = 0;
  };
  std::size_t max_pairs_;
  std::uint64_t clock_ = 0;
  std::map<CalibrationKey, Entry> fits_;
};

}  // namespace plasmient::roofline
