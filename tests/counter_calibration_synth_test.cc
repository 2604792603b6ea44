// The counter estimate between kernel windows against the truth on the synth fleet
// (docs/counters.md, "Truth on the synth fleet"): every scenario on two devices, counters with
// noise and clock throttling for 30 minutes, a 2 s kernel window every 60 s. The windows calibrate
// the counter model as serve does (serve::CounterEstimator); the estimate over each stretch between
// two windows is held to ≤ 2 pt of the truth, and the uncalibrated model's error is printed beside.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "roofline/counter_model.h"
#include "roofline/device_table.h"
#include "serve/counter_estimate.h"
#include "synth/counter_series.h"
#include "verdict/device_activity.h"

namespace plasmient {
namespace {

// What serve's analysis does with a samples file: the device tier's means, the counter model.
double Uncalibrated(const synth::CounterSeries& s, const roofline::DeviceSpec& device, double from_s,
                    double to_s) {
  model::Trace t = s.SamplesOver(from_s, to_s);
  verdict::DeviceActivity tier = verdict::DeviceActivityOver(t, kNoTime, kNoTime);
  roofline::CounterEstimate e =
      roofline::EstimateFromCounters(tier.Reading(), &device, roofline::Dtype::kBf16);
  EXPECT_TRUE(e.valid);
  EXPECT_TRUE(e.clock_known);
  return e.achieved;
}

struct Errors {
  std::vector<double> calibrated, uncalibrated;
  std::size_t within_band = 0;
  static double Mean(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
  }
  static double Max(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  }
};

TEST(CounterCalibrationSynth, CalibratedWithinTwoPointsBetweenWindows) {
  const std::vector<std::string> scenarios = {"ddp",       "straggler", "pipeline",    "decode",
                                              "hostbound", "moe",       "ddp-exposed", "host-causes"};
  const std::vector<std::string> gpus = {"h100_sxm", "a100_sxm_80gb"};
  Errors all;
  serve::CounterEstimator estimator;
  std::printf("%-22s %-14s %6s %6s %8s %8s %8s %8s %6s\n", "job", "gpu", "tile", "k", "cal.mean", "cal.max",
              "unc.mean", "unc.max", "band");
  for (const auto& gpu_key : gpus) {
    const roofline::DeviceSpec& device = *roofline::FindDeviceByKey(gpu_key)->spec;
    for (const auto& name : scenarios) {
      synth::SynthConfig config;
      auto scenario = synth::ParseScenario(name);
      ASSERT_TRUE(scenario) << name;
      config.scenario = *scenario;
      config.gpu = gpu_key;
      config.ranks = config.scenario == synth::Scenario::kPipeline ? 4 : 2;
      synth::CounterSeriesOptions options;
      options.seed = std::hash<std::string>{}(name + gpu_key);
      auto series = synth::GenerateCounterSeries(config, 0, options);
      ASSERT_TRUE(series) << series.error().message;
      const std::string job = name + "@" + gpu_key;
      Errors e;
      double band = 0, k = 1;
      const auto& windows = series->windows;
      for (std::size_t w = 0; w < windows.size(); ++w) {
        const auto [start, end] = windows[w];
        estimator.Measured(job, gpu_key, series->TruthOver(start, end),
                           Uncalibrated(*series, device, start, end), end - start);
        const double next = w + 1 < windows.size() ? windows[w + 1].first : options.duration_s;
        if (next - end < options.sample_period_s) continue;
        const double uncalibrated = Uncalibrated(*series, device, end, next);
        const roofline::CalibratedEstimate c = estimator.Between(job, gpu_key, uncalibrated);
        const double truth = series->TruthOver(end, next);
        e.uncalibrated.push_back(std::abs(uncalibrated - truth) * 100);
        if (!c.calibrated) continue;  // the first two stretches: the model alone, said so
        const double error = std::abs(c.achieved - truth);
        e.calibrated.push_back(error * 100);
        if (error <= c.band) ++e.within_band;
        band = c.band;
        k = c.k;
      }
      std::printf("%-22s %-14s %6.3f %6.3f %8.2f %8.2f %8.2f %8.2f %6.2f\n", name.c_str(), gpu_key.c_str(),
                  series->mean_tile_efficiency, k, Errors::Mean(e.calibrated), Errors::Max(e.calibrated),
                  Errors::Mean(e.uncalibrated), Errors::Max(e.uncalibrated), band * 100);
      EXPECT_LE(Errors::Max(e.calibrated), 2.0) << job;
      all.calibrated.insert(all.calibrated.end(), e.calibrated.begin(), e.calibrated.end());
      all.uncalibrated.insert(all.uncalibrated.end(), e.uncalibrated.begin(), e.uncalibrated.end());
      all.within_band += e.within_band;
    }
  }
  std::printf(
      "fleet: %zu stretches between windows; calibrated error mean %.2f pt, max %.2f pt; uncalibrated mean "
      "%.2f pt, max %.2f pt; %.1f%% of calibrated estimates within their band\n",
      all.calibrated.size(), Errors::Mean(all.calibrated), Errors::Max(all.calibrated),
      Errors::Mean(all.uncalibrated), Errors::Max(all.uncalibrated),
      100.0 * static_cast<double>(all.within_band) /
          static_cast<double>(std::max<std::size_t>(1, all.calibrated.size())));
  EXPECT_LE(Errors::Max(all.calibrated), 2.0);
  EXPECT_GT(Errors::Mean(all.uncalibrated), Errors::Mean(all.calibrated)) << "calibration must help";
  EXPECT_GE(static_cast<double>(all.within_band), 0.9 * static_cast<double>(all.calibrated.size()));
}

}  // namespace
}  // namespace plasmient
