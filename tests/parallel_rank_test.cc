// One rank analyzed on several threads (AnalyzeOptions::rank_threads: the join's sorts, the
// roll-ups after the sweep) gives exactly what one thread gives: the JSON verdict and what the
// observer sees, on a generated trace of thousands of activities and on every real trace (skipped, saying so,
// where ../shared/traces is absent).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "export/verdict_json_sink.h"
#include "ingest/trace_kinds.h"
#include "job/analyze_job.h"
#include "tests/test_support.h"
#include "verdict/layers.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;

// What the observer is handed beside the verdict: the layer ranges' call figures.
class RangeCount final : public verdict::RankObserver {
 public:
  void OnRank(const verdict::RankDetail& detail) override {
    ranges += detail.ranges.size();
    activities += detail.facts.size();
  }
  std::size_t ranges = 0, activities = 0;
};

struct Analyzed {
  std::string json;
  std::size_t ranges = 0, activities = 0;
  std::string error;
};

// `cores` cores for one input: its analysis gets them all (job::CoresEach).
Analyzed Analyze(const fs::path& trace, std::size_t cores) {
  RangeCount observer;
  verdict::AnalyzeOptions options;
  options.workers = 1;
  options.cores = cores;
  options.observer = &observer;
  Analyzed out;
  auto job = job::AnalyzeInputs({trace}, options, {});
  if (!job) {
    out.error = job.error().message;
    return out;
  }
  out.json = exporting::VerdictToJson(*job);
  out.ranges = observer.ranges;
  out.activities = observer.activities;
  return out;
}

void ExpectSameOnAnyThreadCount(const fs::path& trace) {
  const Analyzed one = Analyze(trace, 1);
  for (std::size_t cores : {2, 5}) {
    const Analyzed many = Analyze(trace, cores);
    EXPECT_EQ(many.error, one.error) << trace << ", " << cores << " threads";
    EXPECT_TRUE(many.json == one.json) << trace << ", " << cores << " threads: the JSON verdict differs";
    EXPECT_EQ(many.ranges, one.ranges) << trace << ", " << cores << " threads";
    EXPECT_EQ(many.activities, one.activities) << trace << ", " << cores << " threads";
  }
}

TEST(ParallelRankTest, AGeneratedRankGivesTheSameVerdictOnAnyNumberOfThreads) {
  const fs::path dir = TempDir("parallel-rank");
  CommandResult s = RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 1 --steps 80 -o " +
                               (dir / "job").string());
  ASSERT_EQ(s.exit_code, 0) << s.out;
  const fs::path trace = dir / "job" / "rank-0.pt.trace.json";
  const Analyzed one = Analyze(trace, 1);
  ASSERT_EQ(one.error, "");
  ASSERT_NE(one.json.find("\"per_rank\""), std::string::npos);
  ASSERT_GT(one.activities, 5000u);
  ASSERT_GT(one.ranges, 0u);
  ExpectSameOnAnyThreadCount(trace);
  fs::remove_all(dir);
}

TEST(ParallelRankTest, EveryRealTraceGivesTheSameVerdictOnAnyNumberOfThreads) {
  auto shared = SharedTraces();
  if (!shared) GTEST_SKIP() << "the real traces (../shared/traces) are absent";
  std::vector<fs::path> traces;
  for (const auto& e : fs::recursive_directory_iterator(*shared)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && ingest::IsTraceFileName(name) && name != "manifest.json" &&
        e.path().string().find("/reference/") == std::string::npos) {
      traces.push_back(e.path());
    }
  }
  ASSERT_FALSE(traces.empty());
  for (const fs::path& trace : traces) ExpectSameOnAnyThreadCount(trace);
}

}  // namespace
}  // namespace plasmient::testing
