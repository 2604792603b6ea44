#include "export/html_sink.h"

#include <gtest/gtest.h>

#include "export/diff_sink.h"
#include "export/html_charts.h"
#include "export/testing/test_traces.h"
#include "job/combine.h"

namespace plasmient::exporting {
namespace {

// A tiny XML well-formedness check: balanced tags, quoted attributes, known entities.
::testing::AssertionResult WellFormedXml(std::string_view s) {
  std::vector<std::string> stack;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '&') {
      std::size_t semi = s.find(';', i);
      if (semi == std::string_view::npos) return ::testing::AssertionFailure() << "bare & at " << i;
      std::string_view e = s.substr(i, semi - i + 1);
      if (e != "&amp;" && e != "&lt;" && e != "&gt;" && e != "&quot;" && e != "&#39;") {
        return ::testing::AssertionFailure() << "unknown entity " << e;
      }
      continue;
    }
    if (s[i] == '>') return ::testing::AssertionFailure() << "stray > at " << i;
    if (s[i] != '<') continue;
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < s.size() && (quote || s[j] != '>'); ++j) {
      if (quote && s[j] == quote)
        quote = 0;
      else if (!quote && (s[j] == '"' || s[j] == '\''))
        quote = s[j];
      else if (!quote && s[j] == '<')
        return ::testing::AssertionFailure() << "< inside a tag at " << j;
    }
    if (j >= s.size()) return ::testing::AssertionFailure() << "unterminated tag at " << i;
    std::string_view tag = s.substr(i + 1, j - i - 1);
    bool closing = tag.starts_with('/'), self = tag.ends_with('/');
    std::string name(tag.substr(closing, tag.find_first_of(" /", closing) - closing));
    if (closing) {
      if (stack.empty() || stack.back() != name)
        return ::testing::AssertionFailure() << "mismatched </" << name << ">";
      stack.pop_back();
    } else if (!self) {
      stack.push_back(name);
    }
    i = j;
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "unclosed <" << stack.back() << ">";
  return ::testing::AssertionSuccess();
}

std::vector<std::string_view> SvgBlocks(std::string_view html) {
  std::vector<std::string_view> out;
  for (std::size_t at = html.find("<svg"); at != std::string_view::npos; at = html.find("<svg", at + 1)) {
    std::size_t end = html.find("</svg>", at);
    if (end == std::string_view::npos) break;
    out.push_back(html.substr(at, end + 6 - at));
  }
  return out;
}

verdict::JobVerdict TwoRankJob() {
  verdict::AnalyzeOptions o = testing_traces::Options();
  std::vector<verdict::RankVerdict> ranks;
  for (std::int64_t r : {0, 1}) {
    model::Trace t = testing_traces::ThreeStepRank(r, r == 1 ? 900'000 : 600'000);
    auto v = verdict::AnalyzeRank(t, o);
    EXPECT_TRUE(v);
    ranks.push_back(std::move(*v));
  }
  return job::CombineRanks(std::move(ranks), o);
}

TEST(HtmlSink, SelfContainedWithTheChartsAndWellFormedSvg) {
  verdict::JobVerdict job = TwoRankJob();
  std::string html = RenderHtml(job, {.title = "two ranks <test>"});
  for (const char* id : {"id=\"verdict\"", "id=\"roofline\"", "id=\"waterfall\"", "id=\"heatmap\"",
                         "id=\"kernels\"", "id=\"ranks\"", "id=\"collectives\"", "id=\"layers\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // Inline scripts only: a bare <script> that loads nothing (tests/html_self_contained.py checks more).
  for (auto at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1)) {
    EXPECT_EQ(html.compare(at, 8, "<script>"), 0) << html.substr(at, 60);
  }
  EXPECT_EQ(html.find("fetch("), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("two ranks &lt;test&gt;"), std::string::npos);
  EXPECT_NE(html.find("prefers-color-scheme: dark"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  auto svgs = SvgBlocks(html);
  ASSERT_EQ(svgs.size(), 4u);  // waterfall, roofline, the module icicle, heatmap
  for (auto svg : svgs) EXPECT_TRUE(WellFormedXml(svg));
  // The GEMM and the add are on the roofline (both have FLOPs and bytes); 2 ranks x 3 steps in the heatmap.
  EXPECT_NE(svgs[1].find("sm90_xmma_gemm"), std::string::npos);
  auto count = [](std::string_view s, std::string_view what) {
    std::size_t n = 0;
    for (auto at = s.find(what); at != std::string_view::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(svgs[1], "<circle"), 2u);
  EXPECT_NE(svgs[2].find("id=\"icicle\""), std::string::npos);
  EXPECT_EQ(count(svgs[3], "<title>rank"), 6u);
}

TEST(HtmlSink, WaterfallTakesEveryLossFromCapacityDownToAchieved) {
  verdict::Figures f;
  f.wall_s = 1;
  f.useful_s = 0.25;
  f.loss_s[static_cast<std::size_t>(verdict::Loss::kExposedCommunication)] = 0.5;
  f.loss_s[static_cast<std::size_t>(verdict::Loss::kHostBoundIdle)] = 0.25;
  std::string svg = WaterfallSvg(f);
  EXPECT_TRUE(WellFormedXml(svg));
  std::size_t comm = svg.find("exposed communication"), idle = svg.find("host-bound idle");
  ASSERT_NE(comm, std::string::npos);
  ASSERT_NE(idle, std::string::npos);
  EXPECT_LT(comm, idle);  // largest first
  EXPECT_NE(svg.find(">−50%<"), std::string::npos);
  EXPECT_NE(svg.find(">25%<"), std::string::npos);
  EXPECT_EQ(svg.find("memory-bound"), std::string::npos);  // zero losses are not drawn
}

// Device-tier samples (as the agent's GPM or an Nsight Systems export's GPU metrics give them)
// beside each kernel: the mean of its device's samples inside its calls, in its table row and
// its roofline tooltip. The GEMM runs 0-400 us, the all-reduce 200-600 us, the add 600-700 us.
TEST(HtmlSink, DeviceActivityBesideEachKernel) {
  model::Trace t = testing_traces::ThreeStepRank(0);
  auto sample = [&](TimeNs ts, std::string_view metric, double value) {
    t.samples.ts_ns.push_back(ts);
    t.samples.device.push_back(0);
    t.samples.metric.push_back(t.strings.Intern(metric));
    t.samples.value.push_back(value);
  };
  sample(300'000, model::kTensorActiveMetric, 80);  // out of time order, as readers may leave them
  sample(100'000, model::kTensorActiveMetric, 60);
  sample(500'000, model::kTensorActiveMetric, 10);
  sample(100'000, model::kSmActiveMetric, 90);
  sample(100'000, model::kDramActiveMetric, 25);
  verdict::AnalyzeOptions o = testing_traces::Options();
  auto v = verdict::AnalyzeRank(t, o);
  ASSERT_TRUE(v);
  std::vector<verdict::RankVerdict> ranks;
  ranks.push_back(std::move(*v));
  verdict::JobVerdict job = job::CombineRanks(std::move(ranks), o);
  std::string html = RenderHtml(job, {});
  auto row_of = [&](std::string_view kernel) {
    std::size_t table = html.find("id=\"kernels\"");
    std::size_t at = html.find("title=\"" + std::string(kernel), table);
    EXPECT_NE(at, std::string::npos) << kernel;
    return at == std::string::npos ? std::string() : html.substr(at, html.find("</tr>", at) - at);
  };
  EXPECT_NE(html.find(">device activity</th>"), std::string::npos);
  EXPECT_NE(row_of("sm90_xmma_gemm").find(">SM 90% · tensor 70% · DRAM 25%</td>"), std::string::npos);
  EXPECT_NE(row_of("ncclDevKernel_AllReduce").find(">tensor 45%</td>"), std::string::npos);
  EXPECT_NE(row_of("vectorized_elementwise").find("<td class=\"device\">–</td>"), std::string::npos);
  auto svgs = SvgBlocks(html);
  ASSERT_GE(svgs.size(), 2u);
  EXPECT_NE(svgs[1].find("device during its calls: SM 90% · tensor 70% · DRAM 25%</title>"),
            std::string::npos);
  // Without samples there is no such column.
  EXPECT_EQ(RenderHtml(TwoRankJob(), {}).find(">device activity</th>"), std::string::npos);
}

TEST(HtmlSink, NoGpuActivityStillRendersTheVerdict) {
  verdict::JobVerdict job;
  verdict::RankVerdict r;
  r.no_gpu_reason = "the trace has no GPU activity";
  job.ranks.push_back(r);
  std::string html = RenderHtml(job, {});
  EXPECT_NE(html.find("id=\"verdict\""), std::string::npos);
  EXPECT_NE(html.find("the trace has no GPU activity"), std::string::npos);
}

TEST(DiffHtml, WellFormedWithTheLossTable) {
  verdict::JobVerdict a = TwoRankJob(), b = TwoRankJob();
  std::string html = RenderDiffHtml(verdict::DiffVerdicts(a, b, 10), {"a <x>", "b"});
  EXPECT_NE(html.find("id=\"verdict\""), std::string::npos);
  EXPECT_NE(html.find("id=\"losses\""), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  std::size_t body = html.find("<body>");
  ASSERT_NE(body, std::string::npos);
  EXPECT_TRUE(WellFormedXml(std::string_view(html).substr(body, html.find("</body>") + 7 - body)));
}

}  // namespace
}  // namespace plasmient::exporting
