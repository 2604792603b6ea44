// The cluster layer against `plasmient synth`'s ground truth (docs/cluster.md, docs/synth.md):
// clock offsets within 50 µs, each rank's caused wait within 1 point of job capacity, the
// straggler named, pipeline shape exact and the per-stage bubble within 1 point.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <map>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;

struct Job {
  std::string truth_text, verdict_text;
  simdjson::dom::parser truth_parser, verdict_parser;
  simdjson::dom::element truth, verdict;
  std::map<std::int64_t, simdjson::dom::element> per_rank;  // verdict per_rank by rank
  double capacity_s = 0;
};

// Generates a job and analyzes it; fills `job` (gtest ASSERTs need a void function).
void SynthAndAnalyze(const std::string& synth_flags, Job& job) {
  fs::path dir = TempDir("cluster");
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + dir.string() + " " + synth_flags);
  ASSERT_EQ(s.exit_code, 0) << s.out;
  fs::path out = dir / "verdict.json";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + (dir / "rank-*.pt.trace.json").string() +
                               " -q --json " + out.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  job.truth_text = ReadFile(dir / "truth.json");
  job.verdict_text = ReadFile(out);
  ASSERT_EQ(job.truth_parser.parse(job.truth_text).get(job.truth), simdjson::SUCCESS);
  ASSERT_EQ(job.verdict_parser.parse(job.verdict_text).get(job.verdict), simdjson::SUCCESS);
  ASSERT_EQ(job.verdict["window"]["gpu_seconds"].get(job.capacity_s), simdjson::SUCCESS);
  for (auto r : job.verdict["per_rank"].get_array()) job.per_rank[r["rank"].get_int64().value()] = r;
  ASSERT_EQ(job.verdict["job_problems"].get_array().size(), 0u) << job.verdict_text.substr(0, 2000);
}

void ExpectOffsetsAndCausedWait(Job& job) {
  std::int64_t rank = 0;
  for (auto offset : job.truth["clock_offsets_ns"].get_array()) {
    double ours = job.per_rank.at(rank)["clock_offset_s"].get_double().value() * 1e9;
    EXPECT_NEAR(ours, static_cast<double>(offset.get_int64().value()), 50e3) << "rank " << rank;
    ++rank;
  }
  std::map<std::int64_t, double> truth_caused;
  for (auto s : job.truth["stragglers"].get_array()) {
    truth_caused[s["rank"].get_int64().value()] = s["caused_wait_s"].get_double().value();
  }
  for (auto& [r, v] : job.per_rank) {
    double caused = v["caused_wait_s"].get_double().value();
    double expected = truth_caused.contains(r) ? truth_caused[r] : 0.0;
    EXPECT_NEAR(caused / job.capacity_s, expected / job.capacity_s, 0.01) << "rank " << r;
  }
}

TEST(ClusterSynth, StragglerIsNamedWithItsCausedWait) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("--scenario straggler --ranks 4 --steps 6", job));
  ExpectOffsetsAndCausedWait(job);
  auto ours = job.verdict["stragglers"].get_array();
  ASSERT_EQ(ours.size(), 1u);
  auto truth_top = job.truth["stragglers"].at(0);
  EXPECT_EQ(ours.at(0)["rank"].get_int64().value(), truth_top["rank"].get_int64().value());
  EXPECT_NEAR(ours.at(0)["caused_wait_s"].get_double().value() / job.capacity_s,
              truth_top["caused_wait_s"].get_double().value() / job.capacity_s, 0.01);
  bool fix_names_rank = false;
  for (auto f : job.verdict["fixes"].get_array()) {
    std::string_view action = f["action"].get_string().value();
    fix_names_rank = fix_names_rank || action.rfind("rank 3 arrives late", 0) == 0;
  }
  EXPECT_TRUE(fix_names_rank);
}

// Synth's straggler runs every compute kernel of its rank straggler_factor times slower: the fix
// names that rank's ops, each about that factor slower than on the median rank, and they explain
// most of its lateness.
TEST(ClusterSynth, StragglerFixNamesTheOpsItsTruthSlowed) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("--scenario straggler --ranks 4 --steps 6", job));
  const double factor = job.truth["config"]["straggler_factor"].get_double().value();
  auto ours = job.verdict["stragglers"].get_array();
  ASSERT_EQ(ours.size(), 1u);
  auto slow = ours.at(0)["slow_ops"].get_array();
  ASSERT_GT(slow.size(), 0u) << job.verdict_text.substr(0, 4000);
  double explained = 0;
  for (auto o : slow) {
    const double ratio = o["rank_s"].get_double().value() / o["median_s"].get_double().value();
    EXPECT_NEAR(ratio, factor, 0.1 * factor) << o["op"].get_string().value();
    EXPECT_EQ(o["steps"].get_int64().value(), 6);
    EXPECT_FALSE(o["kernel"].get_string().value().empty());
    explained += o["share_of_lateness"].get_double().value();
  }
  EXPECT_GT(explained, 0.5);
  bool fix_names_ops = false;
  for (auto f : job.verdict["fixes"].get_array()) {
    std::string_view action = f["action"].get_string().value();
    if (action.rfind("rank 3 arrives late", 0) != 0) continue;
    fix_names_ops = action.find("its own ops run slower") != std::string_view::npos;
    EXPECT_LE(f["recoverable"].get_double().value(), f["fraction"].get_double().value());
  }
  EXPECT_TRUE(fix_names_ops);
}

// A balanced data-parallel job: no rank stands out, so no fix blames one or its ops.
TEST(ClusterSynth, BalancedJobGetsNoStragglerFix) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("--scenario ddp --ranks 4 --steps 6", job));
  EXPECT_EQ(job.verdict["stragglers"].get_array().size(), 0u);
  for (auto f : job.verdict["fixes"].get_array()) {
    std::string_view action = f["action"].get_string().value();
    EXPECT_EQ(action.find(" arrives late at "), std::string_view::npos) << action;
    EXPECT_EQ(action.find("its own ops"), std::string_view::npos) << action;
  }
}

TEST(ClusterSynth, ClockOffsetsAreRecovered) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(
      SynthAndAnalyze("--scenario clock-offset --ranks 4 --steps 6 --clock-offset-ms 30", job));
  ExpectOffsetsAndCausedWait(job);
  EXPECT_EQ(job.verdict["stragglers"].get_array().size(), 0u);  // jitter only: nobody stands out
}

TEST(ClusterSynth, PipelineShapeAndBubblePerStage) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("--scenario pipeline --ranks 4 --steps 4", job));
  ExpectOffsetsAndCausedWait(job);
  auto truth = job.truth["pipeline"];
  auto stages = job.verdict["pipeline"].get_array();
  ASSERT_EQ(stages.size(), 4u);
  for (auto p : stages) {
    std::int64_t rank = p["rank"].get_int64().value();
    EXPECT_EQ(p["stage"].get_int64().value(), rank);
    EXPECT_EQ(p["stages"].get_int64().value(), truth["stages"].get_int64().value());
    EXPECT_EQ(p["microbatches"].get_int64().value(), truth["microbatches"].get_int64().value());
    EXPECT_NEAR(p["ideal_bubble"].get_double().value(), truth["ideal_bubble"].get_double().value(), 1e-9);
    EXPECT_NEAR(p["measured_bubble"].get_double().value(),
                truth["per_stage_bubble"].at(static_cast<std::size_t>(rank)).get_double().value(), 0.01);
  }
}

// A late-start rank (its steps begin late, the same work) and a slow-work rank (its compute is
// slower) are each named with the cause their truth gives and the wait they caused (≤ 0.5 point
// of capacity); evening out the work recovers the slow-work rank's share and nothing of the late
// start's.
TEST(ClusterSynth, StragglersAreNamedByTheirTruthsCause) {
  for (const char* scenario : {"late-start", "straggler"}) {
    Job job;
    ASSERT_NO_FATAL_FAILURE(
        SynthAndAnalyze(std::string("--scenario ") + scenario + " --ranks 4 --steps 6", job));
    auto truth_top = job.truth["stragglers"].at(0);
    const std::string_view cause = truth_top["cause"].get_string().value();
    EXPECT_EQ(cause, std::string_view(scenario) == "late-start" ? "late_start" : "slow_work");
    auto ours = job.verdict["stragglers"].get_array();
    ASSERT_EQ(ours.size(), 1u) << scenario;
    auto s = ours.at(0);
    EXPECT_EQ(s["rank"].get_int64().value(), truth_top["rank"].get_int64().value()) << scenario;
    EXPECT_EQ(s["cause"].get_string().value(), cause) << scenario;
    const double truth_share = truth_top["caused_wait_s"].get_double().value() / job.capacity_s;
    EXPECT_NEAR(s["capacity_fraction"].get_double().value(), truth_share, 0.005) << scenario;
    // 6 steps. A slow rank's own slower tail of the previous step (its optimizer after the last
    // all-reduce) delays its next step's start: that part reads as a late start, so the slow-work
    // cause holds at fewer of its late arrivals.
    EXPECT_GT(s["confidence"].get_double().value(), cause == "late_start" ? 0.8 : 0.5) << scenario;
    const double start = s["late_start_s"].get_double().value(), work = s["slow_work_s"].get_double().value();
    const double recoverable_truth = cause == "slow_work" ? truth_share : 0.0;
    for (auto f : job.verdict["fixes"].get_array()) {
      std::string_view action = f["action"].get_string().value();
      if (action.rfind("rank 3 arrives late", 0) != 0) continue;
      EXPECT_EQ(action.find("in 0 of"), std::string_view::npos) << action;
      if (cause == "late_start") {
        EXPECT_NEAR(f["recoverable"].get_double().value(), recoverable_truth, 0.005) << action;
        EXPECT_NE(action.find("its step begins late"), std::string_view::npos) << action;
      }
    }
    if (cause == "late_start") {
      EXPECT_LT(work, 0.05 * (start + work)) << scenario;
    } else {
      EXPECT_LT(start, 0.5 * (start + work)) << scenario;
    }
  }
}

// Hosts without clock sync: ranks an hour apart on a two-step profile (far longer than the
// trace) are aligned by their matched collectives, within 1 µs, never refused.
TEST(ClusterSynth, AnHourOfClockOffsetIsRecoveredWithinAMicrosecond) {
  for (const char* ms : {"0.001", "3600000"}) {
    Job job;
    ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze(
        std::string("--scenario clock-offset --ranks 4 --steps 2 --clock-offset-ms ") + ms, job));
    std::int64_t rank = 0;
    for (auto offset : job.truth["clock_offsets_ns"].get_array()) {
      EXPECT_TRUE(job.per_rank.at(rank)["clock_aligned"].get_bool().value()) << ms << " rank " << rank;
      double ours = job.per_rank.at(rank)["clock_offset_s"].get_double().value() * 1e9;
      EXPECT_NEAR(ours, static_cast<double>(offset.get_int64().value()), 1e3) << ms << " rank " << rank;
      ++rank;
    }
  }
}

// Ranks of two unrelated jobs (the same shape but another model width: other message sizes) are
// refused by their collective signature, naming it.
TEST(ClusterSynth, UnrelatedTracesAreRefusedByTheirCollectiveSignature) {
  fs::path a = TempDir("job-a"), b = TempDir("job-b");
  ASSERT_EQ(
      RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 2 --steps 2 -o " + a.string()).exit_code,
      0);
  ASSERT_EQ(RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 2 --steps 2 --hidden 1024 -o " +
                       b.string())
                .exit_code,
            0);
  CommandResult r = RunCommand(PlasmientBinary() + " analyze " + (a / "rank-0.pt.trace.json").string() + " " +
                               (b / "rank-1.pt.trace.json").string() + " -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("the inputs are not one job: collective signature: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("move other sizes than rank-0.pt.trace.json's"), std::string::npos) << r.out;
  fs::remove_all(a);
  fs::remove_all(b);
}

// A file in the job's folder that is no trace is skipped with a warning, not fatal.
TEST(ClusterSynth, AStrayConfigFileInTheFolderIsSkipped) {
  fs::path dir = TempDir("stray");
  CommandResult s =
      RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 2 --steps 1 -o " + dir.string());
  ASSERT_EQ(s.exit_code, 0) << s.out;
  {
    std::ofstream config(dir / "config.json");
    config << "{\"lr\": 0.001, \"batch_size\": 32}\n";
  }
  fs::path out = dir / "plasmient-verdict.json";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + dir.string() + " -q --json " + out.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  EXPECT_NE(a.out.find("config.json: skipped: not a trace"), std::string::npos) << a.out;
  std::string text = ReadFile(out);
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.parse(text).get(v), simdjson::SUCCESS);
  EXPECT_EQ(v["per_rank"].get_array().size(), 2u);
  bool reported = false;
  for (auto q : v["data_quality"].get_array()) {
    reported = reported ||
               (q["name"].get_string().value() == "skipped_input" && q["count"].get_int64().value() == 1);
  }
  EXPECT_TRUE(reported) << text.substr(0, 2000);
  // Alone, it is an error that says what the file is not.
  CommandResult alone = RunCommand(PlasmientBinary() + " analyze " + (dir / "config.json").string() + " -q");
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_NE(alone.out.find("no traceEvents array"), std::string::npos) << alone.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::testing
