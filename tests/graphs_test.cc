// CUDA graphs end to end (docs/graphs.md): synth's graph-decode job through `plasmient analyze`
// and `whatif` against its truth, with the capture beside the replays and without it, and the dev
// trace whose kernels a cudaGraphLaunch replayed.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>
#include <string>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

constexpr double kTolerance = 0.005;  // half a percentage point

struct Job {
  fs::path dir;
  CommandResult run;
  simdjson::dom::parser truth_parser, got_parser;
  element truth, got;
};

// Generates `scenario` and analyzes `inputs` (relative to the job folder; "" for the folder).
void SynthAndAnalyze(const std::string& scenario, const std::string& inputs, Job& job) {
  job.dir = TempDir("graphs-" + scenario);
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + job.dir.string() + " --scenario " +
                               scenario + " --ranks 2 --steps 3 --layers 3 --seed 21");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  const fs::path out = job.dir / "verdict.json";
  std::string args = inputs.empty() ? job.dir.string() : inputs;
  job.run = RunCommand("cd " + job.dir.string() + " && " + PlasmientBinary() + " analyze " + args +
                       " -q --json " + out.string());
  ASSERT_EQ(job.run.exit_code, 0) << job.run.out;
  ASSERT_EQ(job.truth_parser.load((job.dir / "truth.json").string()).get(job.truth), simdjson::SUCCESS);
  ASSERT_EQ(job.got_parser.load(out.string()).get(job.got), simdjson::SUCCESS);
}

std::map<std::string, element> LayerTypes(element doc) {
  std::map<std::string, element> types;
  for (element t : doc["layer_types"].get_array()) types[std::string(t["type"].get_string().value())] = t;
  return types;
}

TEST(GraphDecode, ReplayedKernelsMatchedToTheCaptureBesideThemGetTheTruthsFlopsAndLayers) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("graph-decode", "", job));
  const element truth = job.truth["graphs"], got = job.got;
  ASSERT_EQ(got["trace_kind"].get_string().value(), "graph-replay");
  const std::int64_t replayed = truth["graph_replayed_kernels"].get_int64();
  EXPECT_GT(replayed, 100);
  EXPECT_EQ(got["graphs"]["graph_replayed_kernels"].get_int64().value(), replayed);
  EXPECT_EQ(got["graphs"]["matched_kernels"].get_int64().value(), replayed);
  EXPECT_EQ(got["graphs"]["matched_by"].get_string().value(), "launch sequence");
  EXPECT_EQ(got["graphs"]["replays"].get_int64().value(), 2 * 3);  // one per step per rank
  EXPECT_NEAR(got["graphs"]["graph_replayed_s"].get_double(), truth["graph_replayed_s"].get_double(), 1e-6);
  EXPECT_EQ(got["graphs"]["unmodeled_kernels"].get_int64().value(), 0);
  // Every replay priced as its own call: the job's FLOPs are the truth's, not one step's.
  EXPECT_NEAR(got["hardware_flops"].get_double() / truth["hardware_flops"].get_double(), 1.0, kTolerance);
  EXPECT_NEAR(got["achieved_fraction"].get_double(), job.truth["job"]["achieved_fraction"].get_double(),
              kTolerance);
  auto got_types = LayerTypes(got);
  std::size_t types = 0;
  for (element t : job.truth["layer_types"].get_array()) {
    const std::string type(t["type"].get_string().value());
    ASSERT_TRUE(got_types.count(type)) << "layer type " << type << " missing";
    EXPECT_NEAR(got_types[type]["share_of_window"].get_double(), t["share_of_window"].get_double(),
                kTolerance)
        << type;
    EXPECT_NEAR(got_types[type]["achieved_fraction"].get_double(), t["achieved_fraction"].get_double(),
                kTolerance)
        << type;
    ++types;
  }
  EXPECT_GE(types, 5u);
  // The captures were set aside as inputs: the job has the replays' two ranks.
  EXPECT_EQ(got["per_rank"].get_array().size(), 2u);
  fs::remove_all(job.dir);
}

TEST(GraphDecode, ACaptureGivenByFlagMatchesItsRanksReplays) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze(
      "graph-decode", "rank-0.pt.trace.json --graph-capture rank-0.capture.pt.trace.json", job));
  const element g = job.got["graphs"];
  EXPECT_GT(g["graph_replayed_kernels"].get_int64().value(), 50);
  EXPECT_EQ(g["matched_kernels"].get_int64().value(), g["graph_replayed_kernels"].get_int64().value());
  fs::remove_all(job.dir);
}

TEST(GraphDecode, ACaptureTraceAloneIsSaidToBeOne) {
  const fs::path dir = TempDir("graphs-capture");
  ASSERT_EQ(RunCommand(PlasmientBinary() + " synth -o " + dir.string() +
                       " --scenario graph-decode --ranks 1 --steps 1 --layers 2")
                .exit_code,
            0);
  CommandResult a =
      RunCommand(PlasmientBinary() + " analyze " + (dir / "rank-0.capture.pt.trace.json").string());
  EXPECT_NE(a.exit_code, 0);
  EXPECT_NE(a.out.find("a graph capture"), std::string::npos) << a.out;
  EXPECT_EQ(a.out.find("CUDA graphs ("), std::string::npos) << a.out;
  CommandResult bad = RunCommand(PlasmientBinary() + " analyze " + (dir / "rank-0.pt.trace.json").string() +
                                 " --graph-capture " + (dir / "rank-0.pt.trace.json").string());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("--graph-capture: not a graph capture"), std::string::npos) << bad.out;
  fs::remove_all(dir);
}

TEST(GraphDecodeReplayOnly, ExactlyTheReplayedKernelsAreUnmodeledForWantOfTheCapture) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("graph-decode-replay-only", "", job));
  const element g = job.got["graphs"];
  const std::int64_t replayed = job.truth["graphs"]["graph_replayed_kernels"].get_int64();
  EXPECT_EQ(g["graph_replayed_kernels"].get_int64().value(), replayed);
  EXPECT_EQ(g["matched_kernels"].get_int64().value(), 0);
  EXPECT_EQ(g["unmodeled_kernels"].get_int64().value(), replayed);
  bool said = false;
  for (element f : job.got["fixes"].get_array()) {
    if (f["loss"].get_string().value() != "unmodeled_kernels") continue;
    said = std::string(f["action"].get_string().value()).starts_with("graph-replayed, no capture trace");
  }
  EXPECT_TRUE(said) << "no unmodeled fix says graph-replayed, no capture trace";
  bool counted = false;
  for (element q : job.got["data_quality"].get_array()) {
    if (q["name"].get_string().value() == "graph_replay_no_capture") {
      counted = true;
      EXPECT_GE(q["count"].get_int64().value(), replayed);
    }
  }
  EXPECT_TRUE(counted);

  // A lever would scale unmodeled time blindly: no number; with no lever, the verdict.
  CommandResult w = RunCommand(PlasmientBinary() + " whatif " + job.dir.string() + " --batch-scale 8 -q");
  EXPECT_NE(w.exit_code, 0);
  EXPECT_NE(w.out.find("no projection"), std::string::npos) << w.out;
  CommandResult plain = RunCommand(PlasmientBinary() + " whatif " + job.dir.string() + " -q");
  EXPECT_EQ(plain.out.find("no projection"), std::string::npos) << plain.out;
  fs::remove_all(job.dir);
}

TEST(GraphDevTrace, GraphLaunchedKernelsAreCountedAndLabelled) {
  auto traces = SharedTraces();
  if (!traces) GTEST_SKIP() << "shared traces folder absent (PLASMIENT_SHARED_TRACES)";
  const fs::path trace = *traces / "hta/negative_queue_length_values_check/rank0.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " absent";
  const fs::path out = TempDir("graphs-hta") / "verdict.json";
  const fs::path perfetto = out.parent_path() / "trace.json";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + trace.string() + " --json " + out.string() +
                               " --perfetto " + perfetto.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  EXPECT_NE(a.out.find("graph-replayed: 135 kernels in 70 replays"), std::string::npos) << a.out;
  simdjson::dom::parser parser;
  element doc;
  ASSERT_EQ(parser.load(out.string()).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(doc["trace_kind"].get_string().value(), "graph-replay");
  // Counted from the raw events: 70 cudaGraphLaunch calls ran 345 activities, 135 of them
  // kernels, 105.115 ms of kernel time.
  EXPECT_EQ(doc["graphs"]["replays"].get_int64().value(), 70);
  EXPECT_EQ(doc["graphs"]["graph_replayed_kernels"].get_int64().value(), 135);
  EXPECT_NEAR(doc["graphs"]["graph_replayed_s"].get_double(), 0.105115, 1e-6);
  for (element q : doc["data_quality"].get_array()) {
    if (q["name"].get_string().value() == "graph_replayed") {
      EXPECT_EQ(q["count"].get_int64().value(), 345);
    }
  }
  // In the Perfetto trace every activity a replay ran (kernels and memsets) names its replay.
  simdjson::dom::parser trace_parser;
  element events;
  ASSERT_EQ(trace_parser.load(perfetto.string()).get(events), simdjson::SUCCESS);
  std::int64_t labelled = 0;
  for (element ev : events["traceEvents"].get_array()) {
    std::string_view replay;
    if (ev["args"]["graph_replay"].get_string().get(replay) == simdjson::SUCCESS) {
      labelled += replay == "cudaGraphLaunch";
    }
  }
  EXPECT_EQ(labelled, 345);
}

}  // namespace
}  // namespace plasmient::testing
