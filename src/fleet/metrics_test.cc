#include "fleet/metrics.h"

#include <gtest/gtest.h>

#include "fleet/test_job.h"

namespace plasmient::fleet {
namespace {

JobContext Ctx(const std::string& job) {
  JobContext c;
  c.job_id = job;
  c.host = "node\"1";
  return c;
}

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(MetricsTest, ExpositionCarriesTheVerdictPerRank) {
  MetricsRegistry m;
  m.RecordJob(testing::MakeJob(), Ctx("j1"));
  std::string text = m.Render({{"plasmient_serve_queue_depth", "gauge", "Queue.", 3}});
  const std::string l0 = "host=\"node\\\"1\",gpu=\"NVIDIA H100 SXM 80GB\",job=\"j1\",rank=\"0\"";
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

TEST(MetricsTest, CountersAccumulateAcrossAnalysesOfOneJob) {
  MetricsRegistry m;
  m.RecordJob(testing::MakeJob(), Ctx("j1"));
  m.RecordJob(testing::MakeJob(), Ctx("j1"));
  std::string text = m.Render({});
  EXPECT_TRUE(Has(text,
                  "plasmient_gpu_seconds_total{host=\"node\\\"1\",gpu=\"NVIDIA H100 SXM "
                  "80GB\",job=\"j1\",rank=\"1\"} 4\n"));
  EXPECT_EQ(m.jobs(), 1u);
}

TEST(MetricsTest, OnlyTheMostRecentJobsKeepSeries) {
  MetricsRegistry m(2);
  m.RecordJob(testing::MakeJob(), Ctx("a"));
  m.RecordJob(testing::MakeJob(), Ctx("b"));
  m.RecordJob(testing::MakeJob(), Ctx("c"));
  std::string text = m.Render({});
  EXPECT_EQ(m.jobs(), 2u);
  EXPECT_FALSE(Has(text, "job=\"a\""));
  EXPECT_TRUE(Has(text, "job=\"b\""));
  EXPECT_TRUE(Has(text, "job=\"c\""));
}

TEST(MetricsTest, LiveSamplesAppearPerGpu) {
  MetricsRegistry m;
  m.SetLive("n", {{"0", "gpu_utilization_ratio", 0.5}});
  EXPECT_TRUE(Has(m.Render({}), "plasmient_live_gpu_utilization_ratio{host=\"n\",gpu=\"0\"} 0.5\n"));
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
  EXPECT_FALSE(ParseSamples("3\tgpu\t1\n"));
}

}  // namespace
}  // namespace plasmient::fleet
