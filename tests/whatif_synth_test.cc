// What-if projections against synth's ground truth (docs/what-if.md, "How it is tested"): a
// generated run projected under a lever must land on the truth of the run generated with that
// change made — batch 1 decode to batch 8, 32, 64 and 1024; all-reduces after backward to
// overlapped; a pipeline at M to 2M microbatches — within 2 points of achieved fraction, and
// within a quarter of the change the truth shows.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

constexpr double kPoints = 0.02;  // two points of achieved fraction

// One decode model for every batch: weights dominate at batch 1, the KV cache grows with it.
constexpr const char* kDecode =
    "--scenario decode --ranks 1 --steps 3 --hidden 8192 --heads 64 --layers 2 --context 256 --seed 21";

struct Case {
  std::string name;
  std::string source, target;  // synth flags
  std::string levers;          // whatif flags
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
};

struct SynthRun {
  fs::path dir;
  simdjson::dom::parser parser;
  element truth;
};

void Synth(const std::string& flags, SynthRun& run) {
  run.dir = TempDir("whatif");
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + run.dir.string() + " " + flags);
  ASSERT_EQ(s.exit_code, 0) << s.out;
  ASSERT_EQ(run.parser.load((run.dir / "truth.json").string()).get(run.truth), simdjson::SUCCESS);
}

void WhatIf(const SynthRun& run, const std::string& levers, simdjson::dom::parser& parser, element& out) {
  const fs::path json = run.dir / "whatif.json";
  CommandResult w = RunCommand(PlasmientBinary() + " whatif " + run.dir.string() + " -q --json " +
                               json.string() + " " + levers);
  ASSERT_EQ(w.exit_code, 0) << w.out;
  ASSERT_EQ(parser.load(json.string()).get(out), simdjson::SUCCESS);
}

class WhatIfSynth : public ::testing::TestWithParam<Case> {};

TEST_P(WhatIfSynth, ProjectionLandsOnTheTargetRunsTruth) {
  const Case& c = GetParam();
  SynthRun source, target;
  ASSERT_NO_FATAL_FAILURE(Synth(c.source, source));
  ASSERT_NO_FATAL_FAILURE(Synth(c.target, target));
  simdjson::dom::parser parser;
  element got;
  ASSERT_NO_FATAL_FAILURE(WhatIf(source, c.levers, parser, got));

  const double source_truth = source.truth["job"]["achieved_fraction"].get_double();
  const double target_truth = target.truth["job"]["achieved_fraction"].get_double();
  const double current = got["current"]["achieved_fraction"].get_double();
  const double projected = got["projected"]["achieved_fraction"].get_double();
  const std::string figures = "source truth " + std::to_string(source_truth) + ", current " +
                              std::to_string(current) + ", projected " + std::to_string(projected) +
                              ", target truth " + std::to_string(target_truth) + ", error " +
                              std::to_string(projected - target_truth);
  // The current side is the verdict of the source run, which matches its own truth.
  EXPECT_NEAR(current, source_truth, 0.005) << c.name << ": " << figures;
  EXPECT_NEAR(projected, target_truth, kPoints) << c.name << ": " << figures;
  EXPECT_LE(std::fabs(projected - target_truth), 0.25 * std::fabs(target_truth - source_truth))
      << c.name << ": the error is over a quarter of the change the truth shows; " << figures;
  fs::remove_all(source.dir);
  fs::remove_all(target.dir);
  // Each loss too, within two points, unless the projection says it left its trusted range (at
  // 1024× the GEMMs cross the ridge with no compute-bound kernel in the trace to learn from: the
  // split between compute and memory losses then rests on a default efficiency).
  if (got["warnings"].get_array().size() > 0) return;
  for (auto [key, value] : got["projected"]["losses"].get_object()) {
    const double t = target.truth["job"]["losses"][key].get_double();
    EXPECT_NEAR(value.get_double(), t, kPoints)
        << c.name << ": projected " << key << " " << value.get_double() << ", target truth " << t << "; "
        << figures;
  }
}

std::string Decode(int batch) { return std::string(kDecode) + " --batch " + std::to_string(batch); }

INSTANTIATE_TEST_SUITE_P(
    Levers, WhatIfSynth,
    ::testing::Values(Case{"decode_batch1_to_8", Decode(1), Decode(8), "--batch-scale 8"},
                      Case{"decode_batch1_to_32", Decode(1), Decode(32), "--batch-scale 32"},
                      Case{"decode_batch1_to_64", Decode(1), Decode(64), "--batch-scale 64"},
                      Case{"decode_batch1_to_1024", Decode(1), Decode(1024), "--batch-scale 1024"},
                      Case{"ddp_exposed_to_overlapped",
                           "--scenario ddp-exposed --ranks 2 --steps 3 --seed 22",
                           "--scenario ddp --ranks 2 --steps 3 --seed 22", "--overlap-comm"},
                      Case{"pipeline_4_to_8_microbatches",
                           "--scenario pipeline --ranks 2 --microbatches 4 --steps 2 --seed 23",
                           "--scenario pipeline --ranks 2 --microbatches 8 --steps 2 --seed 23",
                           "--microbatches 8"}),
    [](const auto& info) { return info.param.name; });

// Without a lever the projection is the verdict (docs/what-if.md, "The model"): the re-timed,
// replayed timeline and its sweep give back the figures `analyze` measured, on every generated
// scenario and every dev trace. `whatif` has no no-lever shortcut: this holds because each kernel
// keeps its duration (one faster than its modeled roof included), the replay puts it back where
// it ran, and the charge uses the verdict's peaks.
struct IdentityFigures {
  double achieved = 0, useful_s = 0, wall_s = 0;
  std::map<std::string, double> losses;
};

// `analyze --json` and `whatif --json` (no lever) of the same inputs; false when the inputs have
// no GPU activity (both exit 3).
bool VerdictAndNoLeverProjection(const std::string& inputs, IdentityFigures& verdict, IdentityFigures& whatif,
                                 std::string& error) {
  const fs::path dir = TempDir("identity");
  const fs::path v = dir / "verdict.json", w = dir / "whatif.json";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + inputs + " -q --json " + v.string());
  CommandResult p = RunCommand(PlasmientBinary() + " whatif " + inputs + " -q --json " + w.string());
  if (a.exit_code == 3 && p.exit_code == 3) {
    fs::remove_all(dir);
    return false;
  }
  if (a.exit_code != 0 || p.exit_code != 0) {
    error = "analyze: " + a.out + " whatif: " + p.out;
    fs::remove_all(dir);
    return false;
  }
  simdjson::dom::parser vp, wp;
  element vd, wd;
  if (vp.load(v.string()).get(vd) != simdjson::SUCCESS || wp.load(w.string()).get(wd) != simdjson::SUCCESS) {
    error = "unreadable JSON";
    fs::remove_all(dir);
    return false;
  }
  verdict.achieved = vd["achieved_fraction"].get_double();
  verdict.wall_s = vd["window"]["gpu_seconds"].get_double();
  verdict.useful_s = verdict.achieved * verdict.wall_s;
  for (auto [key, value] : vd["losses"].get_object()) verdict.losses[std::string(key)] = value.get_double();
  element projected = wd["projected"];
  whatif.achieved = projected["achieved_fraction"].get_double();
  whatif.wall_s = projected["wall_s"].get_double();
  whatif.useful_s = projected["useful_s"].get_double();
  for (auto [key, value] : projected["losses"].get_object())
    whatif.losses[std::string(key)] = value.get_double();
  fs::remove_all(dir);
  return true;
}

void ExpectIdentity(const std::string& what, const IdentityFigures& v, const IdentityFigures& w) {
  constexpr double kTolerance = 1e-9;
  EXPECT_NEAR(w.achieved, v.achieved, kTolerance) << what << ": achieved fraction";
  EXPECT_NEAR(w.useful_s, v.useful_s, kTolerance * std::max(1.0, v.useful_s)) << what << ": useful_s";
  EXPECT_NEAR(w.wall_s, v.wall_s, kTolerance * std::max(1.0, v.wall_s)) << what << ": wall_s";
  ASSERT_EQ(w.losses.size(), v.losses.size()) << what;
  for (const auto& [key, value] : v.losses) {
    EXPECT_NEAR(w.losses.at(key), value, kTolerance) << what << ": " << key;
  }
}

// Every scenario `plasmient synth` offers (read from its --help, so a new one cannot be missed),
// with the flags this test generates it with.
TEST(WhatIfIdentity, NoLeverIsTheVerdictOnEverySynthScenario) {
  const std::map<std::string, std::string> flags = {
      {"ddp", "--ranks 2 --steps 2 --seed 24"},
      {"straggler", "--ranks 2 --steps 2 --seed 24"},
      {"pipeline", "--ranks 2 --microbatches 4 --steps 2 --seed 25"},
      {"decode", "--ranks 1 --steps 3 --hidden 8192 --heads 64 --layers 2 --context 256 --batch 1 --seed 21"},
      {"hostbound", "--ranks 1 --steps 2 --seed 26"},
      {"moe", "--ranks 2 --steps 2 --seed 24"},
      {"clock-offset", "--ranks 2 --steps 2 --clock-offset-ms 3 --seed 24"},
      {"ddp-exposed", "--ranks 2 --steps 3 --seed 22"},
      {"host-causes", "--ranks 1 --steps 2 --seed 24"},
      {"graph-decode", "--ranks 1 --steps 2 --seed 24"},
      {"graph-decode-replay-only", "--ranks 1 --steps 2 --seed 24"},
      {"late-start", "--ranks 2 --steps 2 --seed 24"},
  };
  CommandResult help = RunCommand(PlasmientBinary() + " synth --help");
  const std::size_t open = help.out.find("--scenario TEXT:{");
  ASSERT_NE(open, std::string::npos) << help.out;
  const std::size_t begin = open + std::string_view("--scenario TEXT:{").size();
  std::istringstream names(help.out.substr(begin, help.out.find('}', begin) - begin));
  int scenarios = 0;
  for (std::string name; std::getline(names, name, ',');) {
    ++scenarios;
    auto it = flags.find(name);
    ASSERT_NE(it, flags.end()) << "scenario " << name << " has no identity case here";
    SynthRun run;
    ASSERT_NO_FATAL_FAILURE(Synth("--scenario " + name + " " + it->second, run));
    IdentityFigures v, w;
    std::string error;
    ASSERT_TRUE(VerdictAndNoLeverProjection(run.dir.string(), v, w, error)) << name << ": " << error;
    ExpectIdentity(name, v, w);
    fs::remove_all(run.dir);
  }
  EXPECT_EQ(scenarios, static_cast<int>(flags.size()));
}

// Every dev trace (shared/traces), each file alone and the two-rank hta/trace_filter pair as one
// job: before the projection kept a kernel faster than its modeled roof at its own speed, that
// pair projected 7.00% with no lever against the verdict's 3.65% (375 kernels above the FP32 peak
// it is judged by were stretched to it).
TEST(WhatIfIdentity, NoLeverIsTheVerdictOnEveryDevTrace) {
  auto shared = SharedTraces();
  if (!shared) {
    GTEST_SKIP() << "shared traces folder absent (PLASMIENT_SHARED_TRACES): the identity on dev traces "
                    "was not checked";
  }
  std::vector<std::string> inputs = {(*shared / "hta/trace_filter").string()};
  for (const auto& e : fs::recursive_directory_iterator(*shared)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().string().find("/reference/") != std::string::npos) continue;
    if (!(name.ends_with(".json.gz") || name.ends_with(".json") || name.ends_with(".sqlite"))) continue;
    if (name == "manifest.json" || name == "run_meta.json") continue;
    inputs.push_back(e.path().string());
  }
  std::sort(inputs.begin(), inputs.end());
  int checked = 0;
  for (const std::string& input : inputs) {
    IdentityFigures v, w;
    std::string error;
    if (!VerdictAndNoLeverProjection("'" + input + "'", v, w, error)) {
      EXPECT_TRUE(error.empty()) << input << ": " << error;
      continue;  // no GPU activity: nothing to project
    }
    ExpectIdentity(input, v, w);
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

// At 1024× the decode GEMMs cross the ridge: the projection names them, memory → compute, and
// the truth's run at batch 1024 has compute-inefficiency loss where batch 1 had none.
TEST(WhatIfSynthBound, LargeBatchMovesTheGemmsToTheComputeRoof) {
  SynthRun source, target;
  ASSERT_NO_FATAL_FAILURE(Synth(Decode(1), source));
  ASSERT_NO_FATAL_FAILURE(Synth(Decode(1024), target));
  simdjson::dom::parser parser;
  element got;
  ASSERT_NO_FATAL_FAILURE(WhatIf(source, "--batch-scale 1024", parser, got));
  ASSERT_GT(got["bound_changes"].get_array().size(), 0u) << "no kernel moved across the ridge";
  for (element c : got["bound_changes"].get_array()) {
    EXPECT_EQ(std::string_view(c["from"].get_string()), "memory");
    EXPECT_EQ(std::string_view(c["to"].get_string()), "compute");
  }
  EXPECT_LT(source.truth["job"]["losses"]["compute_inefficiency"].get_double().value(), 0.001);
  EXPECT_GT(target.truth["job"]["losses"]["compute_inefficiency"].get_double().value(), 0.05);
  EXPECT_GT(got["projected"]["losses"]["compute_inefficiency"].get_double().value(), 0.05);
  fs::remove_all(source.dir);
  fs::remove_all(target.dir);
}

}  // namespace
}  // namespace plasmient::testing

namespace plasmient::testing {
namespace {

// Bad levers are usage errors (2) in one line; a missing input is bad input (1); --microbatches
// on a trace with no pipeline says why.
TEST(WhatIfCli, BadLeversAndInputsFailInOneLine) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth(Decode(1), run));
  const std::string bin = PlasmientBinary() + " whatif ";
  for (const std::string& levers :
       {std::string("--batch-scale 0"), std::string("--batch-scale -3"), std::string("--microbatches 8")}) {
    CommandResult r = RunCommand(bin + run.dir.string() + " -q " + levers);
    EXPECT_EQ(r.exit_code, 2) << levers << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << levers << ": " << r.out;
  }
  CommandResult pipeline = RunCommand(bin + run.dir.string() + " -q --microbatches 8");
  EXPECT_NE(pipeline.out.find("no pipeline stage"), std::string::npos) << pipeline.out;
  CommandResult missing = RunCommand(bin + (run.dir / "absent.json").string() + " -q");
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  fs::remove_all(run.dir);
}

}  // namespace
}  // namespace plasmient::testing

namespace plasmient::testing {
namespace {

// Whether one of a projection's warnings says `words`.
bool Warns(element projection, std::string_view words) {
  for (element w : projection["warnings"].get_array()) {
    if (std::string_view(w.get_string()).find(words) != std::string_view::npos) return true;
  }
  return false;
}

// The trust range: decode with a 2048-token context on 4 layers reads 67 MB of KV cache per token
// at batch 1; at 2048× that is 138 GB beside 0.5 GB of weights, over the H100's 80 GB.
TEST(WhatIfSynthTrust, KvCacheOverDeviceMemoryIsWarned) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth("--scenario decode --ranks 1 --steps 2 --batch 1 --seed 27", run));
  simdjson::dom::parser small_parser, large_parser;
  element small, large;
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--batch-scale 32", small_parser, small));
  EXPECT_EQ(small["warnings"].get_array().size(), 0u);
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--batch-scale 2048", large_parser, large));
  EXPECT_TRUE(Warns(large, "outside the trusted range")) << simdjson::to_string(large["warnings"]);
  fs::remove_all(run.dir);
}

// --overlap-comm names the wait for slower ranks that overlap cannot hide only when it shows at the
// printed precision: on this two-rank job it is 0.6% of the projected GPU time at today's batch,
// and a few microseconds (it printed "0.0%") once a 4× batch makes every step longer.
TEST(WhatIfSynthTrust, PeerWaitIsWarnedOnlyWhenItShows) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth("--scenario ddp-exposed --ranks 2 --steps 3 --seed 22", run));
  simdjson::dom::parser now_parser, scaled_parser;
  element now, scaled;
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--overlap-comm", now_parser, now));
  EXPECT_TRUE(Warns(now, "ranks waiting in collectives")) << simdjson::to_string(now["warnings"]);
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--overlap-comm --batch-scale 4", scaled_parser, scaled));
  EXPECT_FALSE(Warns(scaled, "ranks waiting in collectives")) << simdjson::to_string(scaled["warnings"]);
  fs::remove_all(run.dir);
}

}  // namespace
}  // namespace plasmient::testing

namespace plasmient::testing {
namespace {

// The fleet's lever projections (docs/fleet.md, "Levers"): a job recorded with `analyze --db`
// ranks in `fleet --top jobs --by recoverable-gpu-hours --lever L` with the GPU-hours that
// `whatif` projects for the same trace under L, the current GPU-seconds less the projected ones
// for the same work, within 1%.
struct FleetLeverCase {
  std::string name, synth, whatif_levers, fleet_lever;
  friend void PrintTo(const FleetLeverCase& c, std::ostream* os) { *os << c.name; }
};

class FleetLever : public ::testing::TestWithParam<FleetLeverCase> {};

// The fleet table's first data row, its cells by column name.
std::map<std::string, std::string> FirstRow(const std::string& table) {
  std::istringstream in(table);
  std::string header, row, cell;
  std::getline(in, header);
  std::getline(in, row);
  std::istringstream h(header), r(row);
  std::map<std::string, std::string> cells;
  while (h >> cell) r >> cells[cell];
  return cells;
}

TEST_P(FleetLever, RecoverableGpuHoursAreTheWhatIfProjection) {
  const FleetLeverCase& c = GetParam();
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth(c.synth, run));
  simdjson::dom::parser parser;
  element got;
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, c.whatif_levers, parser, got));
  const double gpus = static_cast<double>(got["gpus"].get_int64());
  // GPU-seconds over the job's ranks: each rank's wall time, as the projection's figures add them.
  const double current_s = got["current"]["wall_s"].get_double();
  const double projected_s = got["projected"]["wall_s"].get_double() / got["work_scale"].get_double();
  const double expected_hours = (current_s - projected_s) / 3600;
  ASSERT_GT(gpus, 1) << "a multi-rank job";
  ASSERT_GT(expected_hours, 0) << c.name << ": the lever recovers nothing; current " << current_s
                               << " s, projected " << projected_s << " s";

  const fs::path db = run.dir / "store.sqlite";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + run.dir.string() +
                               " -q --job lever-job --db " + db.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  CommandResult f = RunCommand(PlasmientBinary() + " fleet --db " + db.string() +
                               " --top jobs --by recoverable-gpu-hours --lever " + c.fleet_lever);
  ASSERT_EQ(f.exit_code, 0) << f.out;
  std::map<std::string, std::string> row = FirstRow(f.out);
  ASSERT_EQ(row["job"], "lever-job") << f.out;
  const double hours = std::stod(row["recoverable_gpu_hours"]);
  EXPECT_NEAR(hours, expected_hours, 0.01 * expected_hours)
      << c.name << ": fleet " << hours << " GPU-h, whatif " << expected_hours << " GPU-h (" << gpus
      << " GPUs)\n"
      << f.out;
  const double price = got["price_per_gpu_hour"].get_double();
  EXPECT_NEAR(std::stod(row["recoverable_spend"]), hours * price, 0.01 * hours * price + 1e-12) << f.out;
  fs::remove_all(run.dir);
}

INSTANTIATE_TEST_SUITE_P(
    Stored, FleetLever,
    ::testing::Values(FleetLeverCase{"ddp_exposed_overlap_comm",
                                     "--scenario ddp-exposed --ranks 2 --steps 3 --seed 22", "--overlap-comm",
                                     "overlap-comm"},
                      FleetLeverCase{"pipeline_4_to_8_microbatches",
                                     "--scenario pipeline --ranks 2 --microbatches 4 "
                                     "--steps 2 --seed 23",
                                     "--microbatches 8", "microbatches 8"}),
    [](const auto& info) { return info.param.name; });

// `plasmient bill --whatif`: per job, the dollars each lever would recover are whatif's
// recoverable GPU-seconds for the same trace, its GPU count and price, at that price, within 1%.
TEST(BillWhatIf, DollarsAreTheWhatIfProjectionAtThePrice) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth("--scenario ddp-exposed --ranks 2 --steps 3 --seed 24", run));
  const std::string price = " --price-per-gpu-hour 3.75";
  const fs::path store_dir = TempDir("bill");  // beside the traces, not among them
  const fs::path db = store_dir / "store.sqlite";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + run.dir.string() +
                               " -q --job bill-job --db " + db.string() + price);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  CommandResult b = RunCommand(PlasmientBinary() + " bill --db " + db.string() +
                               " --whatif overlap-comm,batch-scale=4,cuda-graphs");
  ASSERT_EQ(b.exit_code, 0) << b.out;
  std::istringstream lines(b.out);
  std::string header, line;
  std::getline(lines, header);
  std::map<std::string, std::map<std::string, std::string>> by_lever;
  while (std::getline(lines, line)) {
    std::istringstream h(header), r(line);
    std::map<std::string, std::string> cells;
    std::string cell;
    while (h >> cell) r >> cells[cell];
    by_lever[cells["lever"]] = cells;
  }
  ASSERT_EQ(by_lever.size(), 3u) << b.out;
  for (const auto& [lever, flags] :
       {std::pair{"overlap-comm", "--overlap-comm"}, std::pair{"batch-scale=4", "--batch-scale 4"},
        std::pair{"cuda-graphs", "--cuda-graphs"}}) {
    simdjson::dom::parser parser;
    element got;
    ASSERT_NO_FATAL_FAILURE(WhatIf(run, std::string(flags) + price, parser, got));
    ASSERT_EQ(got["gpus"].get_int64().value(), 2);
    const double dollars =
        got["recoverable_gpu_s"].get_double() / 3600 * got["price_per_gpu_hour"].get_double();
    const auto& row = by_lever[lever];
    ASSERT_EQ(row.at("job"), "bill-job") << b.out;
    const double billed = std::stod(row.at("recoverable_spend"));
    EXPECT_NEAR(billed, dollars, 0.01 * std::abs(dollars) + 1e-9)
        << lever << ": bill $" << billed << ", whatif $" << dollars << "\n"
        << b.out;
    if (std::string_view(lever) == "overlap-comm") {
      EXPECT_GT(dollars, 0) << "the exposed all-reduces are recoverable";
    }
  }
  // The rate flags and the store are two uses: mixing them is a one-line usage error.
  CommandResult mixed =
      RunCommand(PlasmientBinary() + " bill --db " + db.string() + " --whatif overlap-comm --gpus 8");
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
  CommandResult none = RunCommand(PlasmientBinary() + " bill --whatif overlap-comm");
  EXPECT_EQ(none.exit_code, 2) << none.out;
  CommandResult bad = RunCommand(PlasmientBinary() + " bill --db " + db.string() + " --whatif batch-scale");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--whatif"), std::string::npos) << bad.out;
  fs::remove_all(run.dir);
  fs::remove_all(store_dir);
}

// A lever the store does not hold, or a malformed one, is a one-line usage error.
TEST(FleetLeverCli, BadLeverIsAUsageError) {
  const fs::path dir = TempDir("fleet-lever");
  const std::string db = (dir / "store.sqlite").string();
  for (std::string_view lever : {"faster-gpus", "batch-scale", "batch-scale x", "overlap-comm 2"}) {
    CommandResult f = RunCommand(PlasmientBinary() + " fleet --db " + db +
                                 " --top jobs --by recoverable-gpu-hours --lever " + std::string(lever));
    EXPECT_EQ(f.exit_code, 2) << lever << ": " << f.out;
    EXPECT_NE(f.out.find("--lever"), std::string::npos) << lever << ": " << f.out;
  }
  CommandResult k =
      RunCommand(PlasmientBinary() + " fleet --db " + db + " --top kernels --by recoverable-gpu-hours");
  EXPECT_EQ(k.exit_code, 2) << k.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::testing

namespace plasmient::testing {
namespace {

// --batch N reads the current batch from the attention inputs: decode generated at batch 8 reads
// 8, and --batch 256 projects exactly as --batch-scale 32.
TEST(WhatIfBatch, ReadsTheBatchFromTheShapes) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth(Decode(8), run));
  simdjson::dom::parser by_batch_parser, by_scale_parser;
  element by_batch, by_scale;
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--batch 256", by_batch_parser, by_batch));
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--batch-scale 32", by_scale_parser, by_scale));
  EXPECT_EQ(by_batch["levers"]["batch_read"].get_int64().value(), 8);
  EXPECT_EQ(by_batch["levers"]["batch"].get_int64().value(), 256);
  EXPECT_DOUBLE_EQ(by_batch["levers"]["batch_scale"].get_double(), 32);
  EXPECT_DOUBLE_EQ(by_batch["projected"]["achieved_fraction"].get_double(),
                   by_scale["projected"]["achieved_fraction"].get_double());
  CommandResult both =
      RunCommand(PlasmientBinary() + " whatif " + run.dir.string() + " -q --batch 16 --batch-scale 2");
  EXPECT_EQ(both.exit_code, 2) << both.out;
  fs::remove_all(run.dir);
}

// A trace whose shapes show no batch: one line naming --batch-scale, usage exit.
TEST(WhatIfBatch, NoBatchInTheShapesNamesBatchScale) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth("--scenario hostbound --ranks 1 --steps 2 --seed 26", run));
  CommandResult w = RunCommand(PlasmientBinary() + " whatif " + run.dir.string() + " -q --batch 64");
  EXPECT_EQ(w.exit_code, 2) << w.out;
  EXPECT_NE(w.out.find("pass --batch-scale K instead"), std::string::npos) << w.out;
  fs::remove_all(run.dir);
}

// --cuda-graphs on a step that synchronizes with the host (hostbound: loss.item() and a device
// synchronize every step): the projection says capture cannot hold those calls and counts the ones
// in the window, as the raw events give them (sync calls and item() ops overlapping the window of
// the GPU activities).
TEST(WhatIfCudaGraphs, SaysHowManySyncsCaptureCannotHold) {
  SynthRun run;
  ASSERT_NO_FATAL_FAILURE(Synth("--scenario hostbound --ranks 1 --steps 3 --seed 17", run));
  simdjson::dom::parser raw_parser;
  element raw;
  ASSERT_EQ(raw_parser.load((run.dir / "rank-0.pt.trace.json").string()).get(raw), simdjson::SUCCESS);
  double lo = 1e300, hi = 0;
  for (element e : raw["traceEvents"].get_array()) {
    std::string_view cat;
    if (e["cat"].get(cat) || (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset")) continue;
    const double ts = e["ts"].get_double().value(), dur = e["dur"].get_double().value();
    lo = std::min(lo, ts);
    hi = std::max(hi, ts + dur);
  }
  std::int64_t syncs = 0;
  for (element e : raw["traceEvents"].get_array()) {
    std::string_view name;
    if (e["name"].get(name)) continue;
    const bool sync =
        name.find("Synchronize") != std::string_view::npos || name == "aten::_local_scalar_dense";
    double ts = 0, dur = 0;
    if (!sync || e["ts"].get(ts) || e["dur"].get(dur)) continue;
    syncs += ts < hi && ts + dur > lo;
  }
  ASSERT_GT(syncs, 0);
  simdjson::dom::parser parser;
  element got;
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--cuda-graphs", parser, got));
  bool said = false;
  for (element w : got["warnings"].get_array()) {
    const std::string_view text = w.get_string().value();
    if (text.find("CUDA-graph capture cannot hold") == std::string_view::npos) continue;
    said = true;
    EXPECT_NE(text.find("makes " + std::to_string(syncs) + " sync"), std::string_view::npos) << text;
  }
  EXPECT_TRUE(said);
  element plain;
  simdjson::dom::parser plain_parser;
  ASSERT_NO_FATAL_FAILURE(WhatIf(run, "--batch-scale 2", plain_parser, plain));
  for (element w : plain["warnings"].get_array())
    EXPECT_EQ(w.get_string().value().find("capture cannot hold"), std::string_view::npos);
  fs::remove_all(run.dir);
}

}  // namespace
}  // namespace plasmient::testing
