#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "base/text.h"
#include "fleet/dcgm_estimate.h"

#include "fleet/dcgm_reader.h"
#include "roofline/counter_model.h"
#include "roofline/device_table.h"

namespace plasmient::fleet {
namespace {

// A GPU as the fake Prometheus holds it: labels, a constant reading per counter (absent: no
// series), and the evaluation times (from_s, to_s] it has points at.
struct FakeGpu {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> values;  // counter name → sample text
  std::int64_t from_s = 0, to_s = 1LL << 40;
};

std::int64_t Param(const std::string& path, const std::string& name) {
  auto at = path.find("&" + name + "=");
  EXPECT_NE(at, std::string::npos) << path;
  auto begin = at + name.size() + 2;
  auto end = path.find('&', begin);
  return *ParseInt(std::string_view(path).substr(begin, end == std::string::npos ? end : end - begin));
}

// Answers /api/v1/query_range for avg_over_time(COUNTER[…]) from `gpus`, as Prometheus would.
PrometheusGet FakePrometheus(std::vector<FakeGpu> gpus, int* requests) {
  return [gpus = std::move(gpus), requests](const std::string& path) -> Result<std::string> {
    ++*requests;
    EXPECT_TRUE(path.starts_with("/api/v1/query_range?query=avg_over_time%28")) << path;
    std::int64_t start = Param(path, "start"), end = Param(path, "end"), step = Param(path, "step");
    EXPECT_NE(path.find(fmt::format("%5B{}s%5D%29", step)), std::string::npos) << "range = step: " << path;
    std::string result;
    for (const FakeGpu& g : gpus) {
      std::string value;
      for (const auto& [name, v] : g.values) {
        if (path.find("%28" + name + "%5B") != std::string::npos) value = v;
      }
      if (value.empty()) continue;
      std::string labels, points;
      for (const auto& [k, v] : g.labels)
        labels += fmt::format("{}\"{}\":\"{}\"", labels.empty() ? "" : ",", k, v);
      for (std::int64_t t = start; t <= end; t += step) {
        if (t > g.from_s && t <= g.to_s)
          points += fmt::format("{}[{},\"{}\"]", points.empty() ? "" : ",", t, value);
      }
      if (points.empty()) continue;
      result +=
          fmt::format("{}{{\"metric\":{{{}}},\"values\":[{}]}}", result.empty() ? "" : ",", labels, points);
    }
    return fmt::format(R"({{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}})", result);
  };
}

std::map<std::string, std::string> Labels(const std::string& host, const std::string& gpu,
                                          const std::string& model, const std::string& pod,
                                          const std::string& ns) {
  std::map<std::string, std::string> l = {
      {"Hostname", host},   {"gpu", gpu},    {"UUID", "GPU-" + host + "-" + gpu},
      {"modelName", model}, {"job", "dcgm"}, {"instance", host + ":9400"}};
  if (!pod.empty()) l["pod"] = pod;
  if (!ns.empty()) l["namespace"] = ns;
  return l;
}

constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";
constexpr const char* kA100 = "NVIDIA A100-SXM4-80GB";

// The SM clock (MHz) the model's 16-bit tensor peak assumes: readings at it leave the estimate
// the tensor activity itself (roofline/counter_model.h).
std::string PeakClock(const char* model) {
  auto m = roofline::MatchDevice({.name = model});
  if (!m) return "1000";
  return fmt::format("{:.17g}", roofline::PeakClockGhz(*m->spec, roofline::PeakKind::kBf16) * 1000);
}

std::map<std::string, std::string> Readings(const std::string& tensor, const std::string& sm,
                                            const std::string& gr, const std::string& dram,
                                            const std::string& util, const std::string& clock = "") {
  std::map<std::string, std::string> r = {{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", tensor},
                                          {"DCGM_FI_PROF_SM_ACTIVE", sm},
                                          {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", gr},
                                          {"DCGM_FI_PROF_DRAM_ACTIVE", dram},
                                          {"DCGM_FI_DEV_GPU_UTIL", util}};
  if (!clock.empty()) r["DCGM_FI_DEV_SM_CLOCK"] = clock;
  return r;
}

std::vector<FakeGpu> ThreeGpus() {
  return {
      {Labels("node-1", "0", kH100, "train-a-0", "vision"),
       Readings("0.5", "0.8", "0.9", "0.3", "98", PeakClock(kH100))},
      // Tensor above SM active (readings out of step): the SM reading bounds it.
      {Labels("node-1", "1", kH100, "train-a-1", "vision"),
       Readings("0.7", "0.6", "0.9", "0.2", "96", PeakClock(kH100))},
      {Labels("node-2", "0", kA100, "serve-b-0", "nlp"),
       Readings("0.2", "0.4", "0.5", "0.6", "60", PeakClock(kA100))},
  };
}

DcgmReadOptions Window(std::int64_t start, std::int64_t end, std::int64_t step,
                       std::int64_t per_request = 240) {
  DcgmReadOptions o;
  o.source = "http://prom.test:9090";
  o.window = {start, end, step};
  o.max_points_per_request = per_request;
  return o;
}

const DcgmRow& Row(const std::vector<DcgmRow>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const DcgmRow& r) { return r.name == name; });
  EXPECT_NE(it, rows.end()) << name;
  return *it;
}

Result<DcgmEstimate> Estimate(std::vector<FakeGpu> gpus, const DcgmReadOptions& read, DcgmEstimateOptions o,
                              int* requests = nullptr) {
  int n = 0;
  auto c = ReadDcgmCounters(FakePrometheus(std::move(gpus), requests ? requests : &n), read);
  if (!c) return std::unexpected(c.error());
  return EstimateFromDcgm(*c, read, o);
}

// The counter model shared with the agent's samples: the SM clock over the peak's clock scales the
// tensor reading (an H100 SXM's tensor figures assume 1.83 GHz); without a clock a note says so.
TEST(DcgmTest, SmClockNormalizesTheEstimate) {
  std::vector<FakeGpu> gpus = {
      {Labels("node-1", "0", kH100, "job", "team"), Readings("0.5", "0.8", "0.9", "0.3", "98", "1464.03")}};
  auto e = Estimate(gpus, Window(0, 600, 60), {});
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_NEAR(e->total.achieved, 0.5 * 1464.03 / std::stod(PeakClock(kH100)), 1e-9);  // 80% clock
  EXPECT_NEAR(*e->gpus[0].Mean(DcgmCounter::kSmClock), 1464.03, 1e-9);
  gpus[0].values.erase("DCGM_FI_DEV_SM_CLOCK");
  e = Estimate(gpus, Window(0, 600, 60), {});
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->total.achieved, 0.5, 1e-12);
  ASSERT_FALSE(e->notes.empty());
  EXPECT_NE(e->notes[0].find("DCGM_FI_DEV_SM_CLOCK has no series"), std::string::npos) << e->notes[0];
}

TEST(DcgmTest, PerGpuJobAndTeamEstimatesAndBill) {
  int requests = 0;
  DcgmEstimateOptions o;
  o.price_per_gpu_hour = 2;
  // One hour at 60 s steps, asked 7 points at a time: 9 requests per counter.
  auto e = Estimate(ThreeGpus(), Window(0, 3600, 60, 7), o, &requests);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(requests, 6 * 9);
  EXPECT_EQ(e->total.gpus, 3);
  EXPECT_NEAR(e->total.gpu_hours, 3, 1e-9);
  EXPECT_EQ(e->bound_by, "DCGM_FI_PROF_SM_ACTIVE");

  const DcgmRow& a0 = Row(e->jobs, "train-a-0");
  EXPECT_NEAR(a0.achieved, 0.5, 1e-9);
  EXPECT_NEAR(*a0.Mean(DcgmCounter::kGpuUtil), 0.98, 1e-9);
  EXPECT_NEAR(*a0.Mean(DcgmCounter::kDramActive), 0.3, 1e-9);
  EXPECT_NEAR(Row(e->jobs, "train-a-1").achieved, 0.6, 1e-9);  // bounded by SM active

  const DcgmRow& vision = Row(e->teams, "vision");
  EXPECT_EQ(vision.gpus, 2);
  EXPECT_NEAR(vision.gpu_hours, 2, 1e-9);
  EXPECT_NEAR(vision.achieved, (0.5 + 0.6) / 2, 1e-9);
  EXPECT_NEAR(vision.dollars, 4, 1e-9);
  EXPECT_NEAR(vision.wasted_dollars, 2 * (1 - 0.5) + 2 * (1 - 0.6), 1e-12);
  EXPECT_NEAR(*vision.Mean(DcgmCounter::kGpuUtil), 0.97, 1e-12);

  const DcgmRow& nlp = Row(e->teams, "nlp");
  EXPECT_NEAR(nlp.achieved, 0.2, 1e-9);
  EXPECT_NEAR(nlp.wasted_dollars, 2 * 0.8, 1e-12);
  // Most wasted first: vision ($1.80) before nlp ($1.60).
  EXPECT_EQ(e->teams.front().name, "vision");
  EXPECT_NEAR(e->total.achieved, (0.5 + 0.6 + 0.2) / 3, 1e-12);
  EXPECT_NEAR(e->total.wasted_dollars, 1.8 + 1.6, 1e-12);

  // The achieved rate uses each model's dense 16-bit tensor peak from the device table.
  auto h100 = roofline::MatchDevice({.name = kH100});
  ASSERT_TRUE(h100);
  double peak = roofline::PeakFlops(*h100->spec, roofline::Dtype::kBf16, roofline::MathMode::kIeeeFp32);
  EXPECT_NEAR(*a0.achieved_flops_per_s, 0.5 * peak, 1e-3 * peak);
  EXPECT_EQ(Row(e->gpus, "node-1:0").device_key, h100->spec->key);
  EXPECT_TRUE(e->notes.empty()) << e->notes.front();
}

TEST(DcgmTest, GpuHoursCountOnlyTheStepsASeriesCovered) {
  auto gpus = ThreeGpus();
  gpus[2].from_s = 1800;  // node-2 appears half-way
  auto e = Estimate(gpus, Window(0, 3600, 60), {});
  ASSERT_TRUE(e);
  EXPECT_NEAR(Row(e->teams, "nlp").gpu_hours, 0.5, 1e-9);
  EXPECT_NEAR(e->total.gpu_hours, 2.5, 1e-9);
  // The GPU-hour weighting: node-2's half hour counts half.
  EXPECT_NEAR(e->total.achieved, (0.5 + 0.6 + 0.5 * 0.2) / 2.5, 1e-12);
}

TEST(DcgmTest, DefaultPriceIsTheModelsListPrice) {
  auto e = Estimate(ThreeGpus(), Window(0, 3600, 60), {});
  ASSERT_TRUE(e);
  auto a100 = roofline::MatchDevice({.name = kA100});
  ASSERT_TRUE(a100);
  const DcgmRow& nlp = Row(e->teams, "nlp");
  EXPECT_NEAR(nlp.dollars, a100->spec->price_per_gpu_hour, 1e-9);
  EXPECT_NEAR(nlp.wasted_dollars, a100->spec->price_per_gpu_hour * 0.8, 1e-12);
}

TEST(DcgmTest, MissingLabelsAndUnknownModelsAreSaid) {
  auto gpus = ThreeGpus();
  gpus.push_back({Labels("node-3", "0", "NVIDIA GeForce RTX 2080 Ti", "", ""),
                  Readings("0.1", "0.2", "0.3", "0.1", "50", "1590")});
  DcgmEstimateOptions o;
  o.job_label = "container";  // no series carries it
  auto e = Estimate(gpus, Window(0, 3600, 60), o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->jobs.size(), 1U);
  EXPECT_EQ(e->jobs[0].name, "(none)");
  EXPECT_EQ(Row(e->teams, "(none)").gpus, 1);
  ASSERT_EQ(e->notes.size(), 1U);
  EXPECT_NE(e->notes[0].find("'NVIDIA GeForce RTX 2080 Ti'"), std::string::npos) << e->notes[0];
  EXPECT_NE(e->notes[0].find("--price"), std::string::npos) << e->notes[0];
  // Its hours count, its dollars cannot; the fleet's rate is unknown with it in.
  EXPECT_NEAR(e->total.gpu_hours, 4, 1e-9);
  EXPECT_NEAR(e->total.priced_gpu_hours, 3, 1e-9);
  EXPECT_FALSE(e->total.achieved_flops_per_s);
}

TEST(DcgmTest, NoTensorCounterIsAnErrorNamingIt) {
  auto gpus = ThreeGpus();
  for (auto& g : gpus) g.values.erase("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE");
  auto e = Estimate(gpus, Window(0, 3600, 60), {});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE has no series"), std::string::npos)
      << e.error().message;
  EXPECT_EQ(e.error().message.find('\n'), std::string::npos);
}

TEST(DcgmTest, WithoutSmActiveTheEngineBounds) {
  auto gpus = ThreeGpus();
  for (auto& g : gpus) g.values.erase("DCGM_FI_PROF_SM_ACTIVE");
  gpus[1].values["DCGM_FI_PROF_GR_ENGINE_ACTIVE"] = "0.65";
  auto e = Estimate(gpus, Window(0, 3600, 60), {});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bound_by, "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
  EXPECT_NEAR(Row(e->jobs, "train-a-1").achieved, 0.65, 1e-9);
  ASSERT_FALSE(e->notes.empty());
  EXPECT_NE(e->notes[0].find("DCGM_FI_PROF_SM_ACTIVE has no series"), std::string::npos);
  EXPECT_FALSE(Row(e->jobs, "train-a-1").Mean(DcgmCounter::kSmActive));
}

TEST(DcgmTest, NoSeriesAtAllIsAnError) {
  auto gpus = ThreeGpus();
  for (auto& g : gpus) g.to_s = 100;  // before the window
  auto e = Estimate(gpus, Window(3600, 7200, 60), {});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("no DCGM series"), std::string::npos) << e.error().message;
}

TEST(DcgmTest, ServerErrorsStopTheRead) {
  PrometheusGet down = [](const std::string&) -> Result<std::string> {
    return Fail("http://x: unreachable");
  };
  auto c = ReadDcgmCounters(down, Window(0, 3600, 60));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "http://x: unreachable");
  EXPECT_FALSE(ReadDcgmCounters(down, Window(0, 30, 60)));  // shorter than a step
}

TEST(DcgmTest, MatchersSelectEveryCounter) {
  std::vector<std::string> paths;
  PrometheusGet empty = [&](const std::string& path) -> Result<std::string> {
    paths.push_back(path);
    return std::string(R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
  };
  DcgmReadOptions o = Window(0, 600, 60);
  o.match = R"(cluster="east")";
  EXPECT_FALSE(ReadDcgmCounters(empty, o));  // no series
  ASSERT_EQ(paths.size(), static_cast<std::size_t>(kDcgmCounters));
  EXPECT_EQ(
      paths[0],
      "/api/v1/"
      "query_range?query=avg_over_time%28DCGM_FI_PROF_PIPE_TENSOR_ACTIVE%7Bcluster%3D%22east%22%7D%5B60s%5D"
      "%29&start=60&end=600&step=60");
}

TEST(DcgmTest, AnswersThatAreNotAMatrixFail) {
  std::map<std::string, DcgmSeries> into;
  auto error = AddQueryRangeAnswer(R"({"status":"error","errorType":"bad_data","error":"parse error"})",
                                   DcgmCounter::kSmActive, into);
  ASSERT_FALSE(error);
  EXPECT_NE(error.error().message.find("parse error"), std::string::npos);
  EXPECT_FALSE(AddQueryRangeAnswer("<html>", DcgmCounter::kSmActive, into));
  EXPECT_FALSE(AddQueryRangeAnswer(R"({"status":"success","data":{"resultType":"vector","result":[]}})",
                                   DcgmCounter::kSmActive, into));
  EXPECT_FALSE(AddQueryRangeAnswer(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1]]}]}})",
      DcgmCounter::kSmActive, into));
}

TEST(DcgmTest, NanIsNoReadingAndOutOfRangeIsClamped) {
  std::map<std::string, DcgmSeries> into;
  auto s = AddQueryRangeAnswer(
      R"({"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"__name__":"x","gpu":"0"},"values":[[60,"NaN"],[120,"150"],[180,"50"],[240,"+Inf"]]}]}})",
      DcgmCounter::kGpuUtil, into);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(into.size(), 1U);
  const DcgmSeries& series = into.begin()->second;
  EXPECT_EQ(series.labels.size(), 1U);  // __name__ is not a label of the GPU
  const CounterSums& util = series.At(DcgmCounter::kGpuUtil);
  EXPECT_EQ(util.points, 2);
  EXPECT_EQ(util.clamped, 1);
  EXPECT_NEAR(util.Mean(), (1.0 + 0.5) / 2, 1e-9);
}

TEST(DcgmTest, StepSeconds) {
  EXPECT_EQ(*ParseStepSeconds("60"), 60);
  EXPECT_EQ(*ParseStepSeconds("15s"), 15);
  EXPECT_EQ(*ParseStepSeconds("5m"), 300);
  EXPECT_EQ(*ParseStepSeconds("1h"), 3600);
  EXPECT_FALSE(ParseStepSeconds("0s"));
  EXPECT_FALSE(ParseStepSeconds("-5"));
  EXPECT_FALSE(ParseStepSeconds("1d"));
  EXPECT_FALSE(ParseStepSeconds("s"));
  EXPECT_FALSE(ParseStepSeconds("25h"));  // above a day
}

TEST(DcgmTest, UnreachableServerIsOneLine) {
  auto get = PrometheusHttpGet("http://127.0.0.1:1", 2);
  ASSERT_TRUE(get);
  auto r = (*get)("/api/v1/query_range?query=up&start=0&end=60&step=60");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("Prometheus unreachable"), std::string::npos) << r.error().message;
  EXPECT_FALSE(PrometheusHttpGet("https://prom:9090"));
}

TEST(DcgmTest, TextAndJsonCarryTheEstimate) {
  DcgmEstimateOptions o;
  o.price_per_gpu_hour = 2;
  auto e = Estimate(ThreeGpus(), Window(0, 3600, 60), o);
  ASSERT_TRUE(e);
  std::string text = FormatDcgmEstimate(*e, 1);
  EXPECT_NE(text.find("ESTIMATES from device counters"), std::string::npos);
  EXPECT_NE(text.find("vision"), std::string::npos);
  EXPECT_NE(text.find("2 more (--limit)"), std::string::npos) << text;
  std::string json = DcgmEstimateJson(*e);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_FALSE(parser.parse(json).get(doc)) << json;
  std::string_view schema;
  ASSERT_FALSE(doc["schema"].get(schema));
  EXPECT_EQ(schema, "plasmient.fleet_dcgm/1");
  double hours = 0;
  ASSERT_FALSE(doc["total"]["gpu_hours"].get(hours));
  EXPECT_NEAR(hours, 3, 1e-9);
  simdjson::dom::array jobs;
  ASSERT_FALSE(doc["jobs"].get(jobs));
  EXPECT_EQ(jobs.size(), 3U);
}

}  // namespace
}  // namespace plasmient::fleet
