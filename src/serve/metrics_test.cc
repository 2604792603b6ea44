#include "serve/metrics.h"

#include <gtest/gtest.h>

#include "store/testing/test_job.h"

namespace plasmient::serve {
namespace {

store::JobContext Ctx(const std::string& job) {
  store::JobContext c;
  c.job_id = job;
  c.host = "node\"1";
  return c;
}

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(MetricsTest, ExpositionCarriesTheVerdictPerRank) {
  MetricsRegistry m;
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));
  std::string text = m.Render({{"plasmient_serve_queue_depth", "gauge", "Queue.", 3}});
  const std::string l0 =
      "Hostname=\"node\\\"1\",modelName=\"NVIDIA H100 SXM 80GB\",plasmient_job=\"j1\",rank=\"0\"";
  EXPECT_TRUE(Has(text, "# TYPE plasmient_achieved_fraction_of_peak_ratio gauge\n"));
  EXPECT_TRUE(Has(text, "plasmient_achieved_fraction_of_peak_ratio{" + l0 + "} 0.25\n")) << text;
  EXPECT_TRUE(Has(text, "plasmient_gpu_utilization_ratio{" + l0 + "} 0.75\n"));
  EXPECT_TRUE(Has(text, "plasmient_loss_ratio{" + l0 + ",category=\"exposed_communication\"} 0.75\n"));
  EXPECT_TRUE(Has(text, "plasmient_gpu_seconds_total{" + l0 + "} 2\n"));
  EXPECT_TRUE(Has(text, "plasmient_wasted_gpu_seconds_total{" + l0 + "} 1.5\n"));
  EXPECT_TRUE(Has(text, "plasmient_step_seconds_bucket{" + l0 + ",le=\"0.25\"} 2\n"));
  EXPECT_TRUE(Has(text, "plasmient_step_seconds_bucket{" + l0 + ",le=\"0.1\"} 0\n"));
  EXPECT_TRUE(Has(text, "plasmient_step_seconds_count{" + l0 + "} 2\n"));
  EXPECT_TRUE(Has(text, "plasmient_serve_queue_depth 3\n"));
}

// Scrapes between two changes share one text (no copy per scrape); a change makes a new one,
// and a scrape still sending the old one keeps it whole.
TEST(MetricsTest, ScrapesShareTheSeriesUntilTheyChange) {
  MetricsRegistry m;
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));
  auto first = m.Series();
  EXPECT_EQ(m.Series().get(), first.get());
  EXPECT_TRUE(Has(std::string(first->text()), "plasmient_job=\"j1\""));
  m.RecordJob(store::testing::MakeJob(), Ctx("j2"));
  auto second = m.Series();
  EXPECT_NE(second.get(), first.get());
  EXPECT_TRUE(Has(std::string(second->text()), "plasmient_job=\"j2\""));
  EXPECT_FALSE(Has(std::string(first->text()), "plasmient_job=\"j2\""));
  EXPECT_EQ(m.Render({}), std::string(second->text()));
}

TEST(MetricsTest, CountersAccumulateAcrossAnalysesOfOneJob) {
  MetricsRegistry m;
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));
  std::string text = m.Render({});
  EXPECT_TRUE(Has(text,
                  "plasmient_gpu_seconds_total{Hostname=\"node\\\"1\",modelName=\"NVIDIA H100 SXM "
                  "80GB\",plasmient_job=\"j1\",rank=\"1\"} 4\n"));
  EXPECT_EQ(m.jobs(), 1u);
}

TEST(MetricsTest, OnlyTheMostRecentJobsKeepSeries) {
  MetricsRegistry m(2);
  m.RecordJob(store::testing::MakeJob(), Ctx("a"));
  m.RecordJob(store::testing::MakeJob(), Ctx("b"));
  m.RecordJob(store::testing::MakeJob(), Ctx("c"));
  std::string text = m.Render({});
  EXPECT_EQ(m.jobs(), 2u);
  EXPECT_FALSE(Has(text, "plasmient_job=\"a\""));
  EXPECT_TRUE(Has(text, "plasmient_job=\"b\""));
  EXPECT_TRUE(Has(text, "plasmient_job=\"c\""));
}

TEST(MetricsTest, LiveSamplesAppearPerGpu) {
  MetricsRegistry m;
  m.SetLive("n", {{"0", "gpu_utilization_ratio", 0.5}});
  EXPECT_TRUE(Has(m.Render({}), "plasmient_live_gpu_utilization_ratio{Hostname=\"n\",gpu=\"0\"} 0.5\n"));
}

TEST(MetricsTest, EscapesLabelValues) { EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd"); }

TEST(MetricsTest, LabelValuesAreValidUtf8) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(EscapeLabelValue("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(EscapeLabelValue("a\xFF"
                             "b"),
            "a" + fffd + "b");                                      // never valid
  EXPECT_EQ(EscapeLabelValue("\xC3\x28"), fffd + "(");              // cut sequence
  EXPECT_EQ(EscapeLabelValue("\xC0\xAF"), fffd + fffd);             // overlong '/'
  EXPECT_EQ(EscapeLabelValue("\xED\xA0\x80"), fffd + fffd + fffd);  // a surrogate
  EXPECT_EQ(EscapeLabelValue("\xE2\x82"), fffd + fffd);             // cut at the end
  EXPECT_EQ(EscapeLabelValue("a\x1B[0m\x7F"), "a" + fffd + "[0m" + fffd);
}

TEST(MetricsTest, SamplesSurviveTheirText) {
  RankSample s;
  s.rank = 3;
  s.gpu = "odd\tname\\with\nbreaks";
  s.utilization = 0.1 + 0.2;
  s.achieved = 1e-300;
  s.loss[2] = 0.25;
  s.gpu_s = 12345.678;
  s.buckets[4] = 7;
  s.steps = 7;
  s.steps_sum_s = 0.07;
  s.kind = SampleKind::kWindow;
  s.tensor_active = 0.375;
  s.dram_active = 0.1;
  s.window_start_ns = 1'764'532'800'123'456'789;
  s.counter_estimate = 0.3125;
  s.device_key = "h100\tsxm";
  auto back = ParseSamples(SerializeSamples({s, s}));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 2u);
  const RankSample& b = back->at(1);
  EXPECT_EQ(b.rank, 3);
  EXPECT_EQ(b.gpu, s.gpu);
  EXPECT_EQ(b.utilization, s.utilization);
  EXPECT_EQ(b.achieved, s.achieved);
  EXPECT_EQ(b.loss, s.loss);
  EXPECT_EQ(b.gpu_s, s.gpu_s);
  EXPECT_EQ(b.buckets, s.buckets);
  EXPECT_EQ(b.steps_sum_s, s.steps_sum_s);
  EXPECT_EQ(b.kind, SampleKind::kWindow);
  EXPECT_EQ(b.sm_active, -1);
  EXPECT_EQ(b.tensor_active, 0.375);
  EXPECT_EQ(b.dram_active, 0.1);
  EXPECT_EQ(b.window_start_ns, s.window_start_ns);
  EXPECT_EQ(b.counter_estimate, 0.3125);
  EXPECT_EQ(b.device_key, s.device_key);
  EXPECT_FALSE(ParseSamples("3\tgpu\t1\n"));
}

TEST(MetricsTest, TopKernelsAndModuleTypesSurviveTheirText) {
  JobTops tops{
      .kernels = {{"odd\tkernel<\\n>", "memory_bound", 1.5, 0.25}},
      .layer_types = {{"Attention", "compute_inefficiency", 2, 1e-9}, {"MLP", "memory_bound", 3, 1}}};
  std::string text = SerializeSamples({RankSample{}}, tops);
  JobTops back;
  auto ranks = ParseSamples(text, &back);
  ASSERT_TRUE(ranks) << ranks.error().message;
  EXPECT_EQ(ranks->size(), 1u);
  ASSERT_EQ(back.kernels.size(), 1u);
  ASSERT_EQ(back.layer_types.size(), 2u);
  EXPECT_EQ(back.kernels[0].name, "odd\tkernel<\\n>");
  EXPECT_EQ(back.kernels[0].loss, "memory_bound");
  EXPECT_EQ(back.kernels[0].gpu_s, 1.5);
  EXPECT_EQ(back.kernels[0].lost_s, 0.25);
  EXPECT_EQ(back.layer_types[0].lost_s, 1e-9);
  EXPECT_EQ(back.layer_types[1].name, "MLP");
  EXPECT_FALSE(ParseSamples(text));  // tops where none are expected
  EXPECT_FALSE(ParseSamples("k\tname\tloss\t1\tx\tend\n", &back));
}

TEST(MetricsTest, TopKernelsAndModuleTypesOfTheLatestAnalysisPerJob) {
  verdict::JobVerdict job = store::testing::MakeJob();
  job.top_kernels = job.ranks[0].top_kernels;  // sm90_gemm: 0.5 s, 0.25 s lost
  MetricsRegistry m;
  m.RecordJob(job, Ctx("j1"));
  std::string text = m.Render({});
  const std::string j = "Hostname=\"node\\\"1\",plasmient_job=\"j1\",";
  const std::string gemm = "kernel=\"sm90_gemm\",loss=\"compute_inefficiency\"}";
  EXPECT_TRUE(Has(text, "# TYPE plasmient_kernel_lost_gpu_seconds gauge\n"));
  EXPECT_TRUE(Has(text, "plasmient_kernel_gpu_seconds{" + j + gemm + " 0.5\n")) << text;
  EXPECT_TRUE(Has(text, "plasmient_kernel_lost_gpu_seconds{" + j + gemm + " 0.25\n"));
  const std::string attention = "layer_type=\"Attention\",loss=\"memory_bound\"}";
  EXPECT_TRUE(Has(text, "plasmient_layer_gpu_seconds{" + j + attention + " 2\n"));
  EXPECT_TRUE(Has(text, "plasmient_layer_lost_gpu_seconds{" + j + attention + " 1.8\n"));
  EXPECT_TRUE(
      Has(text, "plasmient_layer_lost_gpu_seconds{" + j + "layer_type=\"Net\",loss=\"memory_bound\"} 1.5\n"));

  // A device-tier file (no verdict) keeps them; the next analysis of the job replaces them; a
  // job keeps at most kTopSeries of each.
  RankSample between;
  between.kind = SampleKind::kDeviceTier;
  m.RecordJob(std::vector{between}, Ctx("j1"));
  EXPECT_TRUE(Has(m.Render({}), "plasmient_kernel_gpu_seconds{" + j + gemm + " 0.5\n"));
  job.top_kernels.clear();
  job.layers.types.resize(kTopSeries + 5, store::testing::MakeLayer("", "Block", 1, 0.1, 0.05));
  m.RecordJob(job, Ctx("j1"));
  text = m.Render({});
  EXPECT_FALSE(Has(text, "kernel=\"sm90_gemm\""));
  std::size_t layer_rows = 0;
  for (std::size_t at = 0; (at = text.find("plasmient_layer_gpu_seconds{", at)) != std::string::npos; ++at) {
    ++layer_rows;
  }
  EXPECT_EQ(layer_rows, kTopSeries);
}

RankSample Window(double achieved, double gpu_s, double tensor, std::int64_t start_ns = 0) {
  RankSample s;
  s.window_start_ns = start_ns;
  s.kind = SampleKind::kWindow;
  s.rank = 2;
  s.gpu = "H100";
  s.achieved = achieved;
  s.gpu_s = gpu_s;
  s.tensor_active = tensor;
  s.sm_active = 0.9;
  s.dram_active = 0.3;
  s.counter_estimate = tensor;  // the counter model's figure over the window
  s.device_key = "h100_sxm";
  return s;
}

// A duty-cycled job: rolling over the last kRollingWindows windows, lifetime over all (both
// weighted by window length), and between windows the counter model's estimate, calibrated by the
// job's windows once there are 3 (roofline/counter_calibration.h), labelled estimated.
TEST(MetricsTest, WindowsGiveRollingLifetimeAndEstimatedFigures) {
  MetricsRegistry m;
  const std::string l = "Hostname=\"node\\\"1\",modelName=\"H100\",plasmient_job=\"j\",rank=\"2\"";
  auto value = [&](const std::string& labels) {
    std::string text = m.Render({});
    std::string key = "plasmient_achieved_fraction_of_peak_ratio{" + l + labels + "} ";
    auto at = text.find(key);
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + key.size()));
  };
  // Window 1: 0.2 over 1 s at 40% tensor; window 2: 0.5 over 3 s at 80% tensor.
  m.RecordJob(std::vector{Window(0.2, 1, 0.4, 1'764'532'800'123'456'789)}, Ctx("j"));
  m.RecordJob(std::vector{Window(0.5, 3, 0.8, 1'764'532'860'000'000'000)}, Ctx("j"));
  EXPECT_DOUBLE_EQ(value(",window=\"rolling\",figure=\"measured\""), (0.2 * 1 + 0.5 * 3) / 4);
  EXPECT_DOUBLE_EQ(value(",window=\"lifetime\",figure=\"measured\""), (0.2 * 1 + 0.5 * 3) / 4);
  EXPECT_EQ(value(",window=\"between\",figure=\"estimated\""), -1) << "no estimate before a samples file";
  // Each kernel window is its own series, labelled with its start: neither overwrites the other,
  // and the rank has no plain (unlabelled) series.
  EXPECT_DOUBLE_EQ(value(",window=\"kernel\",window_start=\"1764532800.123\",figure=\"measured\""), 0.2);
  EXPECT_DOUBLE_EQ(value(",window=\"kernel\",window_start=\"1764532860.000\",figure=\"measured\""), 0.5);
  EXPECT_EQ(value(""), -1) << m.Render({});
  // Between windows: the counters estimate 30%. Two windows do not calibrate yet: the model alone.
  RankSample between;
  between.kind = SampleKind::kDeviceTier;
  between.rank = 2;
  between.tensor_active = 0.3;
  between.sm_active = 0.5;
  between.counter_estimate = 0.3;
  m.RecordJob(std::vector{between}, Ctx("j"));
  EXPECT_NEAR(value(",window=\"between\",figure=\"estimated\""), 0.3, 1e-12);
  std::string text = m.Render({});
  EXPECT_TRUE(Has(text, "plasmient_counter_estimate_ratio{" + l + ",calibration=\"none\"} 0.3\n")) << text;
  EXPECT_TRUE(Has(text, "plasmient_counter_estimate_ratio{" + l +
                            ",calibration=\"windows\",calibrated=\"false\"} 0.3\n"));
  EXPECT_TRUE(Has(text, "plasmient_counter_estimate_band_ratio{" + l + "} 0.1\n"));
  EXPECT_TRUE(Has(text, "plasmient_tensor_active_ratio{" + l + "} 0.3\n")) << text;
  EXPECT_TRUE(Has(text, "plasmient_sm_active_ratio{" + l + "} 0.5\n"));
  EXPECT_FALSE(Has(text, "plasmient_dram_active_ratio{" + l)) << "not sampled: no series";
  EXPECT_TRUE(Has(text, "plasmient_kernel_windows_total{" + l + "} 2\n"));
  EXPECT_DOUBLE_EQ(value(",window=\"kernel\",window_start=\"1764532860.000\",figure=\"measured\""), 0.5)
      << "a samples file leaves the windows' series alone";
  // Rolling forgets the oldest windows, and so do the windows' own series; lifetime does not.
  for (std::size_t i = 0; i < kRollingWindows; ++i) {
    std::int64_t start_ns = 1'764'532'920'000'000'000 + static_cast<std::int64_t>(i) * 60'000'000'000;
    m.RecordJob(std::vector{Window(0.1, 1, 0.2, start_ns)}, Ctx("j"));
  }
  text = m.Render({});
  EXPECT_FALSE(Has(text, "window_start=\"1764532860.000\"")) << "older than the last kRollingWindows";
  std::size_t window_series = 0;
  for (std::size_t at = 0; (at = text.find("window=\"kernel\",window_start=", at)) != std::string::npos; ++at)
    ++window_series;
  EXPECT_EQ(window_series, kRollingWindows);
  EXPECT_DOUBLE_EQ(value(",window=\"kernel\",window_start=\"1764533460.000\",figure=\"measured\""), 0.1);
  EXPECT_DOUBLE_EQ(value(",window=\"rolling\",figure=\"measured\""), 0.1);
  EXPECT_NEAR(value(",window=\"lifetime\",figure=\"measured\""),
              (1.7 + 0.1 * kRollingWindows) / (4 + kRollingWindows), 1e-12);
  EXPECT_EQ(value(",window=\"between\",figure=\"estimated\""), -1) << "a new window replaces the estimate";
  // Twelve windows calibrate: k = Σ w·x·y / Σ w·x² over them all.
  m.RecordJob(std::vector{between}, Ctx("j"));
  const double k = (1 * 0.4 * 0.2 + 3 * 0.8 * 0.5 + 10 * 0.2 * 0.1) / (1 * 0.16 + 3 * 0.64 + 10 * 0.04);
  EXPECT_NEAR(value(",window=\"between\",figure=\"estimated\""), 0.3 * k, 1e-12);
  text = m.Render({});
  EXPECT_TRUE(Has(text, ",calibration=\"windows\",calibrated=\"true\"} ")) << text;
  EXPECT_TRUE(Has(text, "plasmient_counter_calibration_windows{" + l + "} 12\n"));
}

// A whole trace with device-tier samples (an Nsight Systems export's GPU_METRICS): its achieved
// fraction stays the plain series, its device tier gives the gauges and is a calibration pair for
// the estimate of a later samples-only file of the job's rank, as a kernel window would.
TEST(MetricsTest, ATraceWithDeviceSamplesGivesTheGaugesAndCalibrates) {
  MetricsRegistry m;
  const std::string l = "Hostname=\"node\\\"1\",modelName=\"H100\",plasmient_job=\"j\",rank=\"2\"";
  RankSample trace = Window(0.3, 2, 0.6);
  trace.kind = SampleKind::kTrace;
  m.RecordJob(std::vector{trace}, Ctx("j"));
  std::string text = m.Render({});
  EXPECT_TRUE(Has(text, "plasmient_achieved_fraction_of_peak_ratio{" + l + "} 0.3\n")) << text;
  EXPECT_FALSE(Has(text, "window=\"rolling\"")) << "a trace is no kernel window";
  EXPECT_TRUE(Has(text, "plasmient_tensor_active_ratio{" + l + "} 0.6\n"));
  EXPECT_TRUE(Has(text, "plasmient_sm_active_ratio{" + l + "} 0.9\n"));
  EXPECT_TRUE(Has(text, "plasmient_dram_active_ratio{" + l + "} 0.3\n"));
  EXPECT_TRUE(Has(text, "plasmient_kernel_windows_total{" + l + "} 0\n"));
  EXPECT_FALSE(Has(text, "figure=\"estimated\""));

  RankSample between;
  between.kind = SampleKind::kDeviceTier;
  between.rank = 2;
  between.tensor_active = 0.4;
  between.counter_estimate = 0.4;
  for (int i = 0; i < 2; ++i) m.RecordJob(std::vector{trace}, Ctx("j"));  // three pairs calibrate
  m.RecordJob(std::vector{between}, Ctx("j"));
  text = m.Render({});
  const std::string estimated =
      "plasmient_achieved_fraction_of_peak_ratio{" + l + ",window=\"between\",figure=\"estimated\"} ";
  auto at = text.find(estimated);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(at + estimated.size())), 0.4 * 0.3 / 0.6, 1e-12);
  EXPECT_TRUE(Has(text, "plasmient_tensor_active_ratio{" + l + "} 0.4\n"));
  EXPECT_TRUE(Has(text, "plasmient_achieved_fraction_of_peak_ratio{" + l + "} 0.3\n"))
      << "the measured figure stays";

  // A trace without device samples touches neither.
  RankSample plain = Window(0.1, 1, -1);
  plain.kind = SampleKind::kTrace;
  plain.sm_active = plain.dram_active = -1;
  plain.rank = 5;
  m.RecordJob(std::vector{plain}, Ctx("j"));
  EXPECT_FALSE(Has(m.Render({}),
                   "plasmient_tensor_active_ratio{Hostname=\"node\\\"1\",modelName=\"H100\",plasmient_job="
                   "\"j\",rank=\"5\"}"));
}

}  // namespace
}  // namespace plasmient::serve

namespace plasmient::serve {
namespace {

TEST(MetricsCountersTest, ANewSeriesShowsZeroForTheHoldThenItsFigures) {
  MetricsRegistry m(32, 90);
  std::int64_t now = 1'000'000'000'000;
  m.SetClock([&] { return now; });
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));
  const std::string l1 =
      "Hostname=\"node\\\"1\",modelName=\"NVIDIA H100 SXM 80GB\",plasmient_job=\"j1\",rank=\"1\"";
  std::string text = m.Render({});
  EXPECT_TRUE(Has(text, "plasmient_gpu_seconds_total{" + l1 + "} 0\n")) << text;
  EXPECT_TRUE(Has(text, "plasmient_step_seconds_count{" + l1 + "} 0\n"));
  EXPECT_TRUE(Has(text, "plasmient_gpu_utilization_ratio{" + l1 + "} 0.75\n"));  // gauges at once
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));  // a second analysis within the hold
  now += 89'000'000'000;
  EXPECT_TRUE(Has(m.Render({}), "plasmient_gpu_seconds_total{" + l1 + "} 0\n"));
  now += 1'000'000'000;  // the cached exposition goes stale at the release
  text = m.Render({});
  EXPECT_TRUE(Has(text, "plasmient_gpu_seconds_total{" + l1 + "} 4\n")) << text;
  m.RecordJob(store::testing::MakeJob(), Ctx("j1"));  // an existing series: no hold
  EXPECT_TRUE(Has(m.Render({}), "plasmient_gpu_seconds_total{" + l1 + "} 6\n"));
}

TEST(MetricsCountersTest, AnAnalysisIsCountedOnceByItsKey) {
  MetricsRegistry m;
  store::JobContext c = Ctx("j1");
  c.job_key = "k1";
  EXPECT_TRUE(m.RecordJob(store::testing::MakeJob(), c));
  EXPECT_FALSE(m.RecordJob(store::testing::MakeJob(), c));
  c.job_key = "k2";
  EXPECT_TRUE(m.RecordJob(store::testing::MakeJob(), c));
  EXPECT_TRUE(Has(m.Render({}), "plasmient_job=\"j1\",rank=\"1\"} 4\n"));
}

TEST(MetricsCountersTest, TheStateComesBackWholeAndRemembersTheKeys) {
  MetricsRegistry a(32, 90);
  std::int64_t now = 5'000'000'000'000;
  a.SetClock([&] { return now; });
  store::JobContext c = Ctx("j\t1\n");
  c.job_key = "k1";
  c.labels = {{"team", "vision"}, {"user", "al\\ice"}};
  a.RecordJob(store::testing::MakeJob(), c);
  RankSample w;
  w.rank = 2;
  w.gpu = "H100";
  w.gpu_index = 3;
  w.kind = SampleKind::kWindow;
  w.achieved = 0.3;
  w.gpu_s = 1.25;
  w.tensor_active = 0.5;
  c.job_key = "k2";
  a.RecordJob(std::vector{w}, c);
  std::string saved = a.SaveState();
  MetricsRegistry b(32, 90);
  b.SetClock([&] { return now; });
  ASSERT_TRUE(b.LoadState(saved)) << saved;
  EXPECT_EQ(b.SaveState(), saved);
  now += 90'000'000'000;
  std::string text = b.Render({});  // the tops and recent windows (gauges) come with the next analysis
  EXPECT_TRUE(Has(text,
                  "plasmient_gpu_seconds_total{Hostname=\"node\\\"1\",modelName=\"NVIDIA H100 SXM 80GB\","
                  "plasmient_job=\"j\xEF\xBF\xBD"
                  "1\\n\",rank=\"1\"} 2\n"))
      << text;
  EXPECT_TRUE(Has(text,
                  "plasmient_kernel_windows_total{Hostname=\"node\\\"1\",gpu=\"3\",modelName=\"H100\","
                  "plasmient_job=\"j\xEF\xBF\xBD"
                  "1\\n\",rank=\"2\"} 1\n"))
      << text;
  EXPECT_TRUE(Has(text,
                  "plasmient_job_info{Hostname=\"node\\\"1\",plasmient_job=\"j\xEF\xBF\xBD"
                  "1\\n\",team=\"vision\","
                  "user=\"al\\\\ice\"} 1\n"))
      << text;
  c.job_key = "k1";
  EXPECT_FALSE(b.RecordJob(store::testing::MakeJob(), c));       // counted before the restart
  EXPECT_FALSE(b.LoadState(saved.substr(0, saved.size() - 4)));  // cut short
  EXPECT_FALSE(b.LoadState("rank\t1\n"));
}

TEST(MetricsCountersTest, JobInfoLabelsNeverShadowTheSeriesOrPrometheusLabels) {
  MetricsRegistry m;
  store::JobContext c = Ctx("j");
  c.labels = {{"job", "x"}, {"instance", "y"}, {"Hostname", "z"}, {"team", "t"}};
  m.RecordJob(store::testing::MakeJob(), c);
  EXPECT_TRUE(Has(m.Render({}),
                  "plasmient_job_info{Hostname=\"node\\\"1\",plasmient_job=\"j\",label_Hostname=\"z\","
                  "label_instance=\"y\",label_job=\"x\",team=\"t\"} 1\n"))
      << m.Render({});
}

TEST(MetricsCountersTest, KernelLabelsAreBoundedToAShortFormAndAHash) {
  std::string name = "void at::native::elementwise_kernel<128, 4, " + std::string(800, 'x') + ">(int, float)";
  std::string label = NameLabel(name);
  EXPECT_LE(label.size(), kLabelBytes);
  EXPECT_TRUE(label.starts_with("at::native::elementwise_kernel\xE2\x80\xA6#")) << label;
  EXPECT_NE(label, NameLabel(name + " "));  // one short form, two names: two labels
  EXPECT_EQ(NameLabel("sm90_xmma_gemm_bf16"), "sm90_xmma_gemm_bf16");
  EXPECT_LE(NameLabel(std::string(500, 'y')).size(), kLabelBytes);
}

}  // namespace
}  // namespace plasmient::serve
