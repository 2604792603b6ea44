#include "roofline/counter_calibration.h"

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

const CalibrationKey kKey{"h100_sxm", "job-a"};

TEST(CounterCalibration, FewPairsStayUncalibrated) {
  CounterCalibration c;
  c.AddWindow(kKey, {.exact = 0.4, .estimate = 0.5, .seconds = 2});
  c.AddWindow(kKey, {.exact = 0.4, .estimate = 0.5, .seconds = 2});
  CalibratedEstimate e = c.Estimate(kKey, 0.6);
  EXPECT_FALSE(e.calibrated);
  EXPECT_DOUBLE_EQ(e.achieved, 0.6);
  EXPECT_DOUBLE_EQ(e.band, kUncalibratedBand);
  EXPECT_EQ(e.pairs, 2u);
}

TEST(CounterCalibration, FitsTheFactorAndItsBand) {
  CounterCalibration c;
  // exact = 0.8 × estimate, ± 0.01.
  const double x[] = {0.5, 0.6, 0.55, 0.7, 0.65};
  const double noise[] = {0.01, -0.01, 0.0, 0.01, -0.01};
  for (int i = 0; i < 5; ++i)
    c.AddWindow(kKey, {.exact = 0.8 * x[i] + noise[i], .estimate = x[i], .seconds = 2});
  CalibratedEstimate e = c.Estimate(kKey, 0.6);
  EXPECT_TRUE(e.calibrated);
  EXPECT_NEAR(e.k, 0.8, 0.01);
  EXPECT_NEAR(e.achieved, 0.48, 0.006);
  const CalibrationFit& fit = c.Fit(kKey);
  ASSERT_EQ(fit.residuals.size(), 5u);
  EXPECT_GE(fit.band, fit.max_abs);
  EXPECT_GE(fit.band, 2 * fit.rms);
  EXPECT_LT(fit.band, 0.04);
  EXPECT_GT(fit.max_abs, 0.009);  // leave-one-out: no smaller than the noise
}

TEST(CounterCalibration, KeysAreSeparate) {
  CounterCalibration c;
  for (int i = 0; i < 4; ++i) c.AddWindow(kKey, {.exact = 0.3, .estimate = 0.6, .seconds = 1});
  CalibrationKey other{"h100_sxm", "job-b"};
  for (int i = 0; i < 4; ++i) c.AddWindow(other, {.exact = 0.6, .estimate = 0.6, .seconds = 1});
  EXPECT_NEAR(c.Estimate(kKey, 0.5).achieved, 0.25, 1e-12);
  EXPECT_NEAR(c.Estimate(other, 0.5).achieved, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(c.Fit(kKey).band, kMinCalibratedBand);  // exact fit: the floor
  c.Bound(1);
  EXPECT_EQ(c.keys(), 1u);
  EXPECT_FALSE(c.Estimate(kKey, 0.5).calibrated);  // the older key went
}

TEST(CounterCalibration, KeepsTheLatestPairsAndRefusesBadOnes) {
  CounterCalibration c(4);
  for (int i = 0; i < 4; ++i) c.AddWindow(kKey, {.exact = 0.1, .estimate = 0.5, .seconds = 1});
  for (int i = 0; i < 4; ++i) c.AddWindow(kKey, {.exact = 0.45, .estimate = 0.5, .seconds = 1});
  c.AddWindow(kKey, {.exact = 0.9, .estimate = 0.5, .seconds = 0});   // no seconds
  c.AddWindow(kKey, {.exact = 0.9, .estimate = -0.5, .seconds = 1});  // not an estimate
  EXPECT_EQ(c.Fit(kKey).pairs, 4u);
  EXPECT_NEAR(c.Fit(kKey).k, 0.9, 1e-12);
}

TEST(CounterCalibration, IdleEstimatesKeepUnitFactor) {
  std::deque<CalibrationPair> pairs(3, CalibrationPair{.exact = 0, .estimate = 0, .seconds = 1});
  EXPECT_DOUBLE_EQ(FitCalibration(pairs).k, 1);
}

}  // namespace
}  // namespace plasmient::roofline
