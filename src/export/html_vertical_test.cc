#include "export/html_vertical.h"

#include <gtest/gtest.h>

#include <set>

#include "cluster/cluster_verdict.h"
#include "export/testing/test_traces.h"
#include "job/combine.h"
#include "verdict/column.h"
#include "verdict/facts.h"

namespace plasmient::exporting {
namespace {

// Checks, inside OnRank while the detail is at hand, that every instant of every view reads the
// sentence `explain` writes: the stretch holding t, rendered at t, equals ExplainSentence of the
// column read at t. And that the column's resident kernels are those a plain scan finds.
class CheckingObserver : public verdict::RankObserver {
 public:
  void OnRank(const verdict::RankDetail& d) override {
    VerticalTrace v = ReadVertical(d);
    ASSERT_FALSE(v.views.empty());
    for (const auto& view : v.views) {
      ASSERT_FALSE(view.segments.empty());
      EXPECT_EQ(view.segments.front().start_ns, view.start_ns);
      for (TimeNs t = view.start_ns; t < view.end_ns; t += 997) {
        std::size_t k = 0;
        while (k + 1 < view.segments.size() && view.segments[k + 1].start_ns <= t) ++k;
        Explanation e{.column = verdict::ReadColumn(d, t)};
        ASSERT_EQ(RenderSentence(view.segments[k].clauses, "", t, d.verdict.run.start_ns), ExplainSentence(e))
            << "rank " << d.verdict.rank << " t " << t;
        std::set<std::int32_t> scanned, read;
        for (std::size_t i = 0; i < d.trace.gpu.size(); ++i) {
          if (d.facts.kept[i] && d.trace.gpu.start_ns[i] <= t && t < d.trace.gpu.end_ns[i])
            scanned.insert(static_cast<std::int32_t>(i));
        }
        for (const auto& a : e.column.resident) read.insert(a.row);
        ASSERT_EQ(scanned, read) << "t " << t;
        ++instants;
      }
    }
    traces.push_back(std::move(v));
  }
  std::vector<VerticalTrace> traces;
  int instants = 0;
};

TEST(HtmlVertical, EveryInstantOfTheViewsReadsExplainsSentence) {
  CheckingObserver check;
  verdict::AnalyzeOptions o = testing_traces::Options();
  o.observer = &check;
  for (std::int64_t r : {0, 1}) {
    model::Trace t = testing_traces::ThreeStepRank(r, r == 1 ? 900'000 : 600'000);
    ASSERT_TRUE(verdict::AnalyzeRank(t, o));
  }
  EXPECT_GT(check.instants, 3000);
  ASSERT_EQ(check.traces.size(), 2u);
  // Step 1 is followed by a host stall: the worst; the median of three is another step.
  const auto& views = check.traces[0].views;
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].step, 1);
  EXPECT_EQ(views[0].title, "worst step 1");
  EXPECT_NE(views[1].step, 1);
  // The stall is an idle stretch after the add, inside step 1's window.
  bool idle = false;
  for (const auto& s : views[0].segments) {
    for (const auto& clause : s.clauses) {
      for (const auto& p : clause) idle |= p.text.find("no kernel is resident") != std::string::npos;
    }
  }
  EXPECT_TRUE(idle);
  // Lanes: both streams (GEMM and add on 7, the all-reduce on 9), every bar inside the view.
  std::set<std::string> names;
  for (const auto& l : views[0].lanes) {
    names.insert(l.name);
    for (const auto& b : l.bars) EXPECT_TRUE(b.start_ns < views[0].end_ns && b.end_ns > views[0].start_ns);
  }
  EXPECT_TRUE(names.contains("stream 7") && names.contains("stream 9")) << names.size();
}

TEST(HtmlVertical, TheSectionEmbedsTheClustersClauseAndTheCursor) {
  verdict::AnalyzeOptions o = testing_traces::Options();
  VerticalCollector collector(nullptr);
  o.observer = &collector;
  std::vector<verdict::RankVerdict> ranks;
  for (std::int64_t r : {0, 1}) {
    model::Trace t = testing_traces::ThreeStepRank(r, r == 1 ? 900'000 : 600'000, r == 1 ? 500'000 : 400'000);
    auto v = verdict::AnalyzeRank(t, o);
    ASSERT_TRUE(v);
    ranks.push_back(std::move(*v));
  }
  verdict::JobVerdict job = job::CombineRanks(std::move(ranks), o);
  const auto v = collector.For(job);
  ASSERT_NE(v, nullptr);
  std::string html = VerticalSection(job, v.get());
  EXPECT_NE(html.find("<section id=\"lanes\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"vt-data\" hidden>{\"c\":["), std::string::npos);
  EXPECT_NE(html.find("class=\"cursor\""), std::string::npos);
  EXPECT_NE(html.find(fmt::format("cluster · rank {}", v->rank)), std::string::npos);
  // The all-reduces are matched across the two ranks: the clause names the collective.
  EXPECT_NE(html.find("allreduce #"), std::string::npos);
  EXPECT_NE(html.find("at most 300 per lane"), std::string::npos);
  EXPECT_NE(html.find(fmt::format("rank {}, where the first fix's loss is largest", v->rank)),
            std::string::npos);
  EXPECT_EQ(VerticalSection(job, nullptr), "");
}

}  // namespace
}  // namespace plasmient::exporting
