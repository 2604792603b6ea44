// Every synth scenario through `plasmient analyze`, against the truth.json it came with:
// achieved fraction, utilization and each loss within half a percentage point, per rank, per
// step and for the job (docs/verdict.md defines them; docs/synth.md how the truth is made), in
// both formats synth writes: Kineto JSON and the agent's native files.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

constexpr double kTolerance = 0.005;  // half a percentage point

const char* const kLosses[] = {"compute_inefficiency",  "memory_bound",    "unmodeled_kernels",
                               "exposed_communication", "pipeline_bubble", "host_bound_idle",
                               "data_movement"};

struct Scenario {
  std::string name;   // test name
  std::string flags;  // synth flags
  friend void PrintTo(const Scenario& s, std::ostream* os) { *os << s.name; }
};

// Compares one FIGURES block; `where` names it in failure messages.
void ExpectFigures(element truth, element got, const std::string& where) {
  auto near = [&](std::string_view key, double t, double g) {
    EXPECT_NEAR(g, t, kTolerance) << where << " " << key << ": expected " << t << ", got " << g;
  };
  near("achieved_fraction", truth["achieved_fraction"].get_double(), got["achieved_fraction"].get_double());
  near("utilization", truth["utilization"].get_double(), got["utilization"].get_double());
  for (const char* loss : kLosses) {
    near(loss, truth["losses"][loss].get_double(), got["losses"][loss].get_double());
  }
}

// Every module type synth put in the trace, with its share of the window and achieved
// fraction within half a point of truth (docs/layers.md); no type the truth does not have.
void ExpectLayerTypes(element truth, element got) {
  std::map<std::string, element> got_types;
  for (element t : got["layer_types"].get_array()) got_types[std::string(t["type"].get_string().value())] = t;
  std::size_t types = 0;
  for (element t : truth["layer_types"].get_array()) {
    std::string type(t["type"].get_string().value());
    ++types;
    ASSERT_TRUE(got_types.count(type)) << "layer type " << type << " missing from the verdict";
    element g = got_types[type];
    EXPECT_NEAR(g["share_of_window"].get_double(), t["share_of_window"].get_double(), kTolerance)
        << "layer type " << type << " share_of_window";
    EXPECT_NEAR(g["achieved_fraction"].get_double(), t["achieved_fraction"].get_double(), kTolerance)
        << "layer type " << type << " achieved_fraction";
  }
  EXPECT_GE(types, 2u) << "the truth names no module type";
  EXPECT_EQ(types, got_types.size()) << "the verdict has layer types the truth does not";
}

// A generated job in `dir`, its truth and the verdict of `plasmient analyze` on it.
struct SynthRun {
  fs::path dir;
  simdjson::dom::parser truth_parser, got_parser;
  element truth, got;
};

// Generates with `flags` and analyzes; fills `run` (gtest ASSERTs need a void function).
void SynthAndAnalyze(const std::string& name, const std::string& flags, SynthRun& run) {
  run.dir = TempDir(name);
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + run.dir.string() + " " + flags);
  ASSERT_EQ(s.exit_code, 0) << s.out;
  fs::path out = run.dir / "plasmient-verdict.json";
  CommandResult a =
      RunCommand(PlasmientBinary() + " analyze " + run.dir.string() + " -q --json " + out.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(run.truth_parser.load((run.dir / "truth.json").string()).get(run.truth), simdjson::SUCCESS);
  ASSERT_EQ(run.got_parser.load(out.string()).get(run.got), simdjson::SUCCESS);
}

class SynthAccuracy : public ::testing::TestWithParam<Scenario> {};

TEST_P(SynthAccuracy, VerdictMatchesTruthWithinHalfAPoint) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze("accuracy", GetParam().flags, run));
  const element truth = run.truth, got = run.got;

  std::map<std::int64_t, element> got_ranks;
  for (element r : got["per_rank"].get_array()) got_ranks[r["rank"].get_int64()] = r;
  std::map<std::pair<std::int64_t, std::int64_t>, element> got_steps;
  for (element st : got["per_step"].get_array()) {
    got_steps[{st["rank"].get_int64(), st["step"].get_int64()}] = st;
  }
  std::size_t ranks = 0;
  for (element r : truth["ranks"].get_array()) {
    std::int64_t rank = r["rank"].get_int64();
    ASSERT_TRUE(got_ranks.count(rank)) << "rank " << rank << " missing from the verdict";
    ExpectFigures(r, got_ranks[rank], "rank " + std::to_string(rank));
    for (element st : r["steps"].get_array()) {
      std::int64_t step = st["step"].get_int64();
      ASSERT_TRUE(got_steps.count({rank, step})) << "rank " << rank << " step " << step << " missing";
      ExpectFigures(st, got_steps[{rank, step}],
                    "rank " + std::to_string(rank) + " step " + std::to_string(step));
    }
    ++ranks;
  }
  EXPECT_EQ(ranks, got_ranks.size());
  ExpectFigures(truth["job"], got, "job");
  ExpectLayerTypes(truth, got);
  fs::remove_all(run.dir);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, SynthAccuracy,
    ::testing::Values(
        Scenario{"ddp", "--scenario ddp --ranks 4 --steps 3 --seed 11"},
        Scenario{"ddp_a100_gzip", "--scenario ddp --ranks 2 --steps 2 --gpu a100_sxm_80gb --gzip --seed 12"},
        Scenario{"straggler", "--scenario straggler --ranks 4 --steps 3 --seed 13"},
        Scenario{"pipeline", "--scenario pipeline --ranks 4 --microbatches 8 --steps 2 --seed 14"},
        Scenario{"decode_batch1", "--scenario decode --ranks 1 --steps 4 --batch 1 --seed 15"},
        Scenario{"decode_batch64", "--scenario decode --ranks 1 --steps 4 --batch 64 --seed 16"},
        Scenario{"hostbound", "--scenario hostbound --ranks 2 --steps 3 --seed 17"},
        Scenario{"moe", "--scenario moe --ranks 4 --steps 2 --seed 18"},
        Scenario{"clock_offset",
                 "--scenario clock-offset --ranks 4 --steps 3 --clock-offset-ms 30 --seed 19"},
        Scenario{"h200", "--scenario ddp --ranks 2 --steps 2 --gpu h200_sxm --seed 20"},
        Scenario{"host_causes", "--scenario host-causes --ranks 2 --steps 3 --seed 21"},
        // Replays of a captured CUDA graph, the capture traces beside them (docs/graphs.md).
        Scenario{"graph_decode", "--scenario graph-decode --ranks 2 --steps 3 --seed 22"}),
    [](const auto& info) { return info.param.name; });

// The same scenarios as the agent would have recorded them: native files, the ops' shapes in
// op records (docs/agent.md, "The file"), the device tier beside them.
INSTANTIATE_TEST_SUITE_P(
    NativeScenarios, SynthAccuracy,
    ::testing::Values(
        Scenario{"ddp", "--format native --scenario ddp --ranks 4 --steps 3 --seed 11"},
        Scenario{"straggler", "--format native --scenario straggler --ranks 4 --steps 3 --seed 13"},
        Scenario{"pipeline",
                 "--format native --scenario pipeline --ranks 4 --microbatches 8 --steps 2 --seed 14"},
        Scenario{"decode_batch64",
                 "--format native --scenario decode --ranks 1 --steps 4 --batch 64 --seed 16"},
        Scenario{"hostbound", "--format native --scenario hostbound --ranks 2 --steps 3 --seed 17"},
        Scenario{"moe", "--format native --scenario moe --ranks 4 --steps 2 --seed 18"},
        Scenario{
            "clock_offset",
            "--format native --scenario clock-offset --ranks 4 --steps 3 --clock-offset-ms 30 --seed 19"}),
    [](const auto& info) { return info.param.name; });

// Decode at batch 4 (synth's decode: every GEMM's M is the batch): the GEMMs that read their
// weights for 4 rows are the largest part of the memory-bound loss, so the first fix raises the
// batch; fusing the elementwise glue (the prefill's fix) must not come first.
TEST(SynthFixes, DecodeMemoryBoundFixRaisesTheBatch) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(
      SynthAndAnalyze("decode_fix", "--scenario decode --ranks 1 --steps 4 --batch 4 --seed 15", run));
  const std::int64_t batch = run.truth["config"]["batch"].get_int64().value();
  bool found = false;
  for (element f : run.got["fixes"].get_array()) {
    if (f["loss"].get_string().value() != "memory_bound") continue;
    found = true;
    std::string_view action = f["action"].get_string().value();
    EXPECT_EQ(action.rfind("the GEMMs read their weights for about " + std::to_string(batch) + " rows", 0),
              0u)
        << action;
    EXPECT_EQ(action.find("elementwise glue"), std::string_view::npos) << action;
  }
  EXPECT_TRUE(found);
  fs::remove_all(run.dir);
}

// Host-bound idle split by cause against the truth's (synth's host stalls, each with its cause):
// every cause the truth gives within a point of its share of the host-bound idle, the distractor
// (a compile range while the GPU is busy) not blamed, idle no range spans said to be unknown, and
// the first host-bound fix the largest cause's.
void ExpectHostCauses(const std::string& name, const std::string& flags, std::string_view top_fix_start) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze(name, flags, run));
  const double idle_s = run.truth["job"]["loss_seconds"]["host_bound_idle"].get_double().value();
  ASSERT_GT(idle_s, 0);
  std::map<std::string, double> got;
  std::string action;
  for (element f : run.got["fixes"].get_array()) {
    if (f["loss"].get_string().value() != "host_bound_idle") continue;
    action = std::string(f["action"].get_string().value());
    for (element c : f["causes"].get_array())
      got[std::string(c["cause"].get_string().value())] = c["share"].get_double();
  }
  ASSERT_FALSE(got.empty()) << "no causes in the host-bound fix";
  std::string top_truth;
  double top_share = 0;
  for (auto [cause, seconds] : run.truth["host_idle_causes"].get_object()) {
    const double share = seconds.get_double().value() / idle_s;
    EXPECT_NEAR(got[std::string(cause)], share, 0.01) << cause;
    if (share > top_share) {
      top_share = share;
      top_truth = std::string(cause);
    }
  }
  EXPECT_EQ(action.rfind(top_fix_start, 0), 0u) << "top truth cause " << top_truth << "; action: " << action;
  fs::remove_all(run.dir);
}

TEST(SynthCauses, AllocatorDataLoaderAndUnknownIdleWithinAPoint) {
  ExpectHostCauses("host_causes", "--scenario host-causes --ranks 2 --steps 3 --seed 21",
                   "the host frees and allocates device memory in the loop");
}

// Host stalls of the causes synth can write (synth --host-stall CAUSE:MS), mixed in one run with
// known shares (a graph instantiated each step records none of the window's launches: the window
// stays eager, and the instantiations' idle is graph_capture's; docs/graphs.md): each within a
// point of the truth, the distractor (host-causes' compile range while the GPU is busy) not blamed, and the
// first fix the largest cause's. The profiler's buffer flush is a Kineto "overhead" event on no op: its idle
// is profiler_overhead, not the allocator's or unknown. In ddp, queued GPU work hides part of each stall:
// only the idle it leaves counts (the truth's overlap of the stall with the idle).
TEST(SynthCauses, EveryStallCauseMixedWithinAPoint) {
  ExpectHostCauses("profiler_overhead",
                   "--scenario host-causes --ranks 2 --steps 3 --seed 21 --host-stall profiler_overhead:12",
                   "the profiler's own work holds the GPU idle");
  ExpectHostCauses("stall_mix",
                   "--scenario hostbound --ranks 2 --steps 3 --seed 31 --host-stall host_collective:9 "
                   "--host-stall blocking_copy:3 --host-stall host_work:2 --host-stall unknown:2 "
                   "--host-stall graph_capture:4",
                   "");
  ExpectHostCauses("stall_mix_ddp",
                   "--scenario ddp --ranks 2 --steps 3 --seed 23 --host-stall profiler_overhead:2 "
                   "--host-stall host_collective:2 --host-stall allocator:1 --host-stall graph_capture:1",
                   "");
}

TEST(SynthCauses, TheDataLoaderOfTheHostboundScenario) {
  ExpectHostCauses("hostbound_causes", "--scenario hostbound --ranks 1 --steps 3 --seed 17",
                   "");  // its launch gaps may hold more than the data loader: no first fix asked
}

// A warm-up inside the profile (synth --warm-up-steps: each GPU activity of the first steps waits
// for its module's load): the verdict names it from the step times, says how many leading steps to
// leave out (the truth's warm_up_steps), and its compile idle is the truth's "compile" seconds.
// The same job without the warm-up, and the same trace read from the steady steps, are not flagged.
void ExpectWarmUp(const std::string& name, const std::string& flags) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze(name, flags, run));
  const std::int64_t warm = run.truth["config"]["warm_up_steps"].get_int64().value();
  element w = run.got["warm_up"];
  if (warm == 0) {
    EXPECT_FALSE(w["detected"].get_bool().value());
    fs::remove_all(run.dir);
    return;
  }
  const double compile_s = run.truth["host_idle_causes"]["compile"].get_double().value();
  ASSERT_TRUE(w["detected"].get_bool().value());
  EXPECT_EQ(w["skip_steps"].get_int64().value(), warm);
  EXPECT_EQ(w["confidence"].get_string().value(), "high");
  EXPECT_NEAR(w["warm_up_causes_s"].get_double().value(), compile_s, 1e-6 * compile_s + 1e-9);
  const std::string steps = "--steps " + std::to_string(warm) + ":";
  EXPECT_NE(w["fix"].get_string().value().find(steps), std::string_view::npos)
      << w["fix"].get_string().value();
  // Read from the steady steps, as the fix says: no warm-up left, and no compile idle.
  CommandResult steady = RunCommand(PlasmientBinary() + " analyze -q --steps " + std::to_string(warm) +
                                    ": --json - " + run.dir.string() + " 2>/dev/null");
  ASSERT_EQ(steady.exit_code, 0) << steady.out;
  simdjson::dom::parser parser;
  element v;
  ASSERT_EQ(parser.parse(steady.out).get(v), simdjson::SUCCESS);
  EXPECT_FALSE(v["warm_up"]["detected"].get_bool().value());
  EXPECT_EQ(v["warm_up"]["warm_up_causes_s"].get_double().value(), 0);
  fs::remove_all(run.dir);
}

TEST(SynthWarmUp, OneWarmUpStepOfAHostBoundRun) {
  ExpectWarmUp("warm_up_1", "--scenario hostbound --ranks 1 --steps 4 --warm-up-steps 1 --seed 17");
}

TEST(SynthWarmUp, TwoWarmUpStepsOnEveryRankOfADdpJob) {
  ExpectWarmUp("warm_up_2", "--scenario ddp --ranks 2 --steps 5 --warm-up-steps 2 --layers 2 --seed 23");
}

TEST(SynthWarmUp, TheSameRunsWithoutAWarmUpAreNotFlagged) {
  ExpectWarmUp("warm_up_none", "--scenario hostbound --ranks 1 --steps 4 --seed 17");
  ExpectWarmUp("warm_up_none_ddp", "--scenario ddp --ranks 2 --steps 5 --layers 2 --seed 23");
  ExpectWarmUp("warm_up_host_causes", "--scenario host-causes --ranks 2 --steps 3 --seed 21");
  // Compiling and instantiating a graph every step is the loop's cost, not a warm-up: no step is
  // slow, and the idle recurs in the steady steps.
  ExpectWarmUp("warm_up_recurring",
               "--scenario hostbound --ranks 1 --steps 4 --seed 17 --host-stall graph_capture:4 "
               "--host-stall compile:3");
}

// The same warm-up in traces with no step marks (synth --no-step-marks: no ProfilerStep#N ranges,
// as a program profiled without prof.step() writes): the verdict reads the iterations from the
// timeline, a host range the raw trace repeats once per step, and finds the truth's warm-up steps
// as its slow leading iterations, from their times; its compile idle is the truth's.
void ExpectUnmarkedWarmUp(const std::string& name, const std::string& flags) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze(name, flags + " --no-step-marks", run));
  const std::int64_t warm = run.truth["config"]["warm_up_steps"].get_int64().value();
  const std::int64_t steps = run.truth["config"]["steps"].get_int64().value();
  EXPECT_FALSE(run.truth["config"]["step_marks"].get_bool().value());
  const std::string raw = ReadFile(run.dir / "rank-0.pt.trace.json");
  EXPECT_EQ(raw.find("ProfilerStep#"), std::string::npos);
  element w = run.got["warm_up"];
  ASSERT_TRUE(w["iterations"].is_object()) << "no iterations read";
  element it = w["iterations"];
  EXPECT_EQ(it["count"].get_int64().value(), steps - 1);  // whole iterations between the starts
  // The marker is a host range the raw trace holds once per step.
  const std::string marker = "\"name\": \"" + std::string(it["marker"].get_string().value()) + "\"";
  std::int64_t occurrences = 0;
  for (std::size_t at = raw.find(marker); at != std::string::npos; at = raw.find(marker, at + 1))
    ++occurrences;
  EXPECT_EQ(occurrences, steps) << marker;
  EXPECT_EQ(it["source"].get_string().value(), "host_range");
  EXPECT_EQ(w["skip_steps"].get_int64().value(), 0);
  if (warm == 0) {
    EXPECT_FALSE(w["detected"].get_bool().value()) << w["evidence"];
    fs::remove_all(run.dir);
    return;
  }
  ASSERT_TRUE(w["detected"].get_bool().value());
  bool by_iterations = false;
  for (element b : w["basis"].get_array())
    by_iterations = by_iterations || b.get_string().value() == "iteration_times";
  EXPECT_TRUE(by_iterations);
  EXPECT_EQ(it["slow"].get_int64().value(), warm);
  const double compile_s = run.truth["host_idle_causes"]["compile"].get_double().value();
  EXPECT_NEAR(w["warm_up_causes_s"].get_double().value() - w["once_early_s"].get_double().value(), compile_s,
              1e-6 * compile_s + 1e-9);
  // Never a --steps slice: there are no steps to slice.
  const std::string_view fix = w["fix"].get_string().value();
  EXPECT_EQ(fix.find("--steps " + std::to_string(warm) + ":"), std::string_view::npos) << fix;
  EXPECT_NE(fix.find("torch.profiler.schedule"), std::string_view::npos) << fix;
  fs::remove_all(run.dir);
}

TEST(SynthWarmUp, OneWarmUpIterationWithoutStepMarks) {
  ExpectUnmarkedWarmUp("unmarked_warm_up_1",
                       "--scenario hostbound --ranks 1 --steps 5 --warm-up-steps 1 --seed 17");
}

TEST(SynthWarmUp, TwoWarmUpIterationsOnEveryRankWithoutStepMarks) {
  ExpectUnmarkedWarmUp("unmarked_warm_up_2",
                       "--scenario ddp --ranks 2 --steps 6 --warm-up-steps 2 --layers 2 --seed 23");
}

TEST(SynthWarmUp, SteadyIterationsWithoutStepMarksAreNotFlagged) {
  ExpectUnmarkedWarmUp("unmarked_none", "--scenario hostbound --ranks 1 --steps 5 --seed 17");
  ExpectUnmarkedWarmUp("unmarked_none_ddp", "--scenario ddp --ranks 2 --steps 6 --layers 2 --seed 23");
}

// Exposed communication by role against the truth (synth builds every all-to-all as an MoE
// layer's dispatch or combine, every all-reduce as a DDP bucket's gradient sync): each role's
// share of the exposed time within a point of its kernels' exposed time in truth.json, nothing
// left unknown, and the fix led by the larger role. The backward all-to-alls carry no MoE name
// (as in real traces, autograd runs them): their group and kind give them their role.
void ExpectCommRoles(const std::string& name, const std::string& flags, std::string_view lead) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(SynthAndAnalyze(name, flags, run));
  std::map<std::string, double> truth;
  double total = 0;
  for (element r : run.truth["ranks"].get_array()) {
    for (element k : r["kernels"].get_array()) {
      if (k["class"].get_string().value() != "collective") continue;
      const std::string_view kernel = k["name"].get_string().value();
      const double s = k["share_s"].get_double().value();
      truth[kernel.find("AllReduce") != kernel.npos ? "data_parallel" : "moe"] += s;
      total += s;
    }
  }
  ASSERT_GT(total, 0);
  std::map<std::string, double> got;
  std::string action;
  for (element f : run.got["fixes"].get_array()) {
    if (f["loss"].get_string().value() != "exposed_communication") continue;
    const std::string_view a = f["action"].get_string().value();
    if (a.starts_with("rank ")) continue;  // a straggler's
    action = std::string(a);
    for (element c : f["causes"].get_array())
      got[std::string(c["cause"].get_string().value())] = c["share"].get_double();
  }
  for (const auto& [role, s] : truth) EXPECT_NEAR(got[role], s / total, 0.01) << role;
  EXPECT_EQ(got.count("unknown"), 0u);
  EXPECT_EQ(action.rfind(lead, 0), 0u) << action;
  fs::remove_all(run.dir);
}

TEST(SynthCommRoles, MoeDispatchAndGradientSync) {
  ExpectCommRoles("moe_roles", "--scenario moe --ranks 2 --steps 3 --seed 1",
                  "exposed communication is MoE all-to-all");
}

TEST(SynthCommRoles, DdpGradientSync) {
  ExpectCommRoles("ddp_roles", "--scenario ddp --ranks 2 --steps 3 --seed 1",
                  "exposed communication is data-parallel");
}

}  // namespace
}  // namespace plasmient::testing
