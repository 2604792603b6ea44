// `plasmient synth --format native` (docs/synth.md): the agent's files for a generated job.
//  * The native and the Kineto trace of one scenario give the same verdict.
//  * With --window-s/--period-s, the agent's duty cycle: samples files and kernel windows
//    alternate, named and flagged as the agent names and flags them, and each window analyzed
//    alone matches its truth (truth.json, "files") within half a point.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "tests/test_support.h"
#include "wire/file_format.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

constexpr double kTolerance = 0.005;  // half a percentage point, as synth_accuracy_test
// Native and Kineto traces of one run carry the same times to the nanosecond and the same op
// shapes, so their figures agree to rounding.
constexpr double kSameTolerance = 1e-9;

const char* const kLosses[] = {"compute_inefficiency",  "memory_bound",    "unmodeled_kernels",
                               "exposed_communication", "pipeline_bubble", "host_bound_idle",
                               "data_movement"};

void ExpectFigures(element want, element got, double tolerance, const std::string& where) {
  auto near = [&](std::string_view key, double w, double g) {
    EXPECT_NEAR(g, w, tolerance) << where << " " << key << ": expected " << w << ", got " << g;
  };
  near("achieved_fraction", want["achieved_fraction"].get_double(), got["achieved_fraction"].get_double());
  near("utilization", want["utilization"].get_double(), got["utilization"].get_double());
  for (const char* loss : kLosses) {
    near(loss, want["losses"][loss].get_double(), got["losses"][loss].get_double());
  }
}

// Synthesizes into `dir` with `flags`; false (with a gtest failure) when synth fails.
bool Synth(const fs::path& dir, const std::string& flags) {
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + dir.string() + " " + flags);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  return s.exit_code == 0;
}

// Analyzes `what` (a folder or a file) into `json`.
bool Analyze(const std::string& what, const fs::path& json) {
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + what + " -q --json " + json.string());
  EXPECT_EQ(a.exit_code, 0) << what << ": " << a.out;
  return a.exit_code == 0;
}

class NativeAndKineto : public ::testing::TestWithParam<const char*> {};

TEST_P(NativeAndKineto, GiveTheSameVerdict) {
  const fs::path dir = TempDir("native-kineto");
  const std::string flags = GetParam();
  ASSERT_TRUE(Synth(dir / "kineto", flags));
  ASSERT_TRUE(Synth(dir / "native", flags + " --format native"));
  ASSERT_TRUE(Analyze((dir / "kineto").string(), dir / "kineto.json"));
  ASSERT_TRUE(Analyze((dir / "native").string(), dir / "native.json"));
  simdjson::dom::parser kp, np;
  element k, n;
  ASSERT_EQ(kp.load((dir / "kineto.json").string()).get(k), simdjson::SUCCESS);
  ASSERT_EQ(np.load((dir / "native.json").string()).get(n), simdjson::SUCCESS);
  ExpectFigures(k, n, kSameTolerance, "job");
  std::map<std::int64_t, element> native_ranks;
  for (element r : n["per_rank"].get_array()) native_ranks[r["rank"].get_int64()] = r;
  std::size_t ranks = 0;
  for (element r : k["per_rank"].get_array()) {
    const std::int64_t rank = r["rank"].get_int64();
    ASSERT_TRUE(native_ranks.count(rank)) << "rank " << rank;
    ExpectFigures(r, native_ranks[rank], kSameTolerance, "rank " + std::to_string(rank));
    ++ranks;
  }
  EXPECT_EQ(ranks, native_ranks.size());
  std::map<std::pair<std::int64_t, std::int64_t>, element> native_steps;
  for (element st : n["per_step"].get_array())
    native_steps[{st["rank"].get_int64(), st["step"].get_int64()}] = st;
  std::size_t steps = 0;
  for (element st : k["per_step"].get_array()) {
    const std::pair<std::int64_t, std::int64_t> key{st["rank"].get_int64(), st["step"].get_int64()};
    ASSERT_TRUE(native_steps.count(key)) << "rank " << key.first << " step " << key.second;
    ExpectFigures(st, native_steps[key], kSameTolerance,
                  "rank " + std::to_string(key.first) + " step " + std::to_string(key.second));
    ++steps;
  }
  EXPECT_EQ(steps, native_steps.size());
  EXPECT_GT(steps, 0u);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, NativeAndKineto,
                         ::testing::Values("--scenario ddp --ranks 4 --steps 3 --seed 7",
                                           "--scenario pipeline --ranks 4 --steps 2 --seed 7",
                                           "--scenario moe --ranks 4 --steps 2 --seed 7",
                                           "--scenario decode --ranks 1 --steps 4 --seed 7",
                                           "--scenario hostbound --ranks 2 --steps 3 --seed 7"));

// The agent's file number: 6 digits, zero-padded.
std::string SpoolSeq(std::size_t seq) {
  std::string digits = std::to_string(seq);
  return std::string(6 - std::min<std::size_t>(6, digits.size()), '0') + digits;
}

std::uint32_t HeaderFlags(const fs::path& file) {
  const std::string bytes = ReadFile(file);
  wire::FileHeader h{};
  if (bytes.size() < sizeof h) return ~0u;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, wire::kFileMagic, sizeof h.magic) != 0) return ~0u;
  return h.flags;
}

// 8 steps of ddp last about 50 ms per rank: a 10 ms window every 20 ms gives two to three
// windows, each holding one or two whole steps.
TEST(NativeWindows, TheAgentsDutyCycleWithATruthPerWindow) {
  const fs::path dir = TempDir("native-windows");
  ASSERT_TRUE(Synth(dir,
                    "--format native --scenario ddp --ranks 2 --steps 8 --seed 5 --layers 2 "
                    "--window-s 0.010 --period-s 0.020 --sample-period-ms 2"));
  simdjson::dom::parser tp;
  element truth;
  ASSERT_EQ(tp.load((dir / "truth.json").string()).get(truth), simdjson::SUCCESS);
  std::size_t windows = 0;
  for (element rank : truth["ranks"].get_array()) {
    const std::int64_t r = rank["rank"].get_int64();
    std::set<std::int64_t> all_steps, seen_steps;
    for (element st : rank["steps"].get_array()) all_steps.insert(st["step"].get_int64());
    std::size_t seq = 0;
    bool last_was_window = true;  // the first file is the stretch before the first window
    for (element f : rank["files"].get_array()) {
      const std::string name(f["file"].get_string().value());
      // <job>-<rank>-<host>-<pid>-<seq>.pltrace, '-' inside the job and host spelled '_'.
      const std::string want = "synth_ddp_5-" + std::to_string(r) + "-synth_node0-" +
                               std::to_string(2'100'000 + r) + "-" + SpoolSeq(seq) + ".pltrace";
      EXPECT_EQ(name, want);
      ++seq;
      const bool window = f["kind"].get_string().value() == "window";
      EXPECT_NE(window, last_was_window) << name << ": windows and samples files alternate";
      last_was_window = window;
      EXPECT_EQ(HeaderFlags(dir / name),
                wire::kFileWindow | (window ? std::uint32_t{wire::kFileKernels} : 0u))
          << name;
      for (std::int64_t step : f["steps"].get_array()) {
        EXPECT_TRUE(seen_steps.insert(step).second) << "step " << step << " in two files";
      }
      if (!window) continue;
      ++windows;
      const fs::path json = dir / (name + ".json");
      ASSERT_TRUE(Analyze((dir / name).string(), json));
      simdjson::dom::parser gp;
      element got;
      ASSERT_EQ(gp.load(json.string()).get(got), simdjson::SUCCESS);
      ExpectFigures(f, got, kTolerance, name);
    }
    EXPECT_EQ(seen_steps, all_steps) << "rank " << r << ": every step in one file";
    EXPECT_GE(seq, 4u) << "rank " << r;
  }
  EXPECT_GE(windows, 4u);
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_NE(entry.path().extension(), ".part") << entry.path() << ": every file completed and renamed";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::testing
