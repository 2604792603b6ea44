// A job's ranks read and analyzed on several workers (--jobs) give exactly what one worker gives:
// the JSON verdict, the Perfetto trace (its observer sees ranks in input order), the warnings
// about inputs set aside, and the error when one rank is damaged or runs out of memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;

struct Outputs {
  CommandResult run;
  std::string json, perfetto;
};

Outputs Analyze(const std::string& inputs, int jobs, const fs::path& dir) {
  // The same paths for every run: the output names them.
  fs::path json = dir / "verdict.json", perfetto = dir / "perfetto.json";
  Outputs out;
  out.run = RunCommand(PlasmientBinary() + " analyze " + inputs + " --jobs " + std::to_string(jobs) +
                       " --no-color --json " + json.string() + " --perfetto " + perfetto.string());
  out.json = ReadFile(json);
  out.perfetto = ReadFile(perfetto);
  return out;
}

class ParallelJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = TempDir("parallel-job");
    CommandResult s = RunCommand(PlasmientBinary() + " synth --scenario straggler --ranks 8 --steps 4 -o " +
                                 (dir_ / "job").string());
    ASSERT_EQ(s.exit_code, 0) << s.out;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static fs::path dir_;
};
fs::path ParallelJobTest::dir_;

TEST_F(ParallelJobTest, EightRanksGiveTheSameVerdictOnAnyNumberOfWorkers) {
  std::string inputs = (dir_ / "job").string();
  Outputs one = Analyze(inputs, 1, dir_);
  ASSERT_EQ(one.run.exit_code, 0) << one.run.out;
  ASSERT_NE(one.json.find("\"per_rank\""), std::string::npos);
  for (int jobs : {2, 3, 8, 32}) {
    Outputs many = Analyze(inputs, jobs, dir_);
    ASSERT_EQ(many.run.exit_code, 0) << many.run.out;
    EXPECT_TRUE(many.json == one.json) << "--jobs " << jobs << ": the JSON verdict differs";
    EXPECT_TRUE(many.perfetto == one.perfetto) << "--jobs " << jobs << ": the Perfetto trace differs";
    EXPECT_EQ(many.run.out, one.run.out) << "--jobs " << jobs;
  }
}

TEST_F(ParallelJobTest, SetAsideInputsAreWarnedInInputOrder) {
  fs::path job = dir_ / "with-extras";
  fs::create_directories(job);
  for (const auto& e : fs::directory_iterator(dir_ / "job")) {
    if (e.path().filename() != "truth.json") fs::copy_file(e.path(), job / e.path().filename());
  }
  // A copy of rank 2 (repeats it) and a JSON document that is no trace, between the ranks.
  fs::copy_file(job / "rank-2.pt.trace.json", job / "rank-2b.pt.trace.json");
  std::ofstream(job / "rank-5a.json") << "{\"config\": {\"lr\": 0.1}}";
  Outputs one = Analyze(job.string(), 1, dir_);
  ASSERT_EQ(one.run.exit_code, 0) << one.run.out;
  ASSERT_NE(one.run.out.find("rank-2b.pt.trace.json: skipped: the same trace as"), std::string::npos)
      << one.run.out;
  ASSERT_NE(one.run.out.find("rank-5a.json: skipped: not a trace"), std::string::npos) << one.run.out;
  // A repeat is analyzed before it is known to be one, but never reaches the observer: the
  // Perfetto trace is the job's without the extras.
  Outputs plain = Analyze((dir_ / "job").string(), 1, dir_);
  EXPECT_TRUE(one.perfetto == plain.perfetto) << "the repeat or the set-aside input reached the trace";
  for (int jobs : {2, 4, 9}) {
    Outputs many = Analyze(job.string(), jobs, dir_);
    EXPECT_EQ(many.run.exit_code, 0);
    EXPECT_EQ(many.run.out, one.run.out) << "--jobs " << jobs;
    EXPECT_TRUE(many.json == one.json) << "--jobs " << jobs;
    EXPECT_TRUE(many.perfetto == one.perfetto) << "--jobs " << jobs;
  }
}

TEST_F(ParallelJobTest, TheFirstDamagedRankIsTheError) {
  fs::path job = dir_ / "damaged";
  fs::create_directories(job);
  for (const auto& e : fs::directory_iterator(dir_ / "job")) {
    if (e.path().filename() != "truth.json") fs::copy_file(e.path(), job / e.path().filename());
  }
  for (const char* rank : {"rank-3.pt.trace.json", "rank-6.pt.trace.json"}) {
    auto size = fs::file_size(job / rank);
    fs::resize_file(job / rank, size / 2);  // cut short: not valid JSON
  }
  Outputs one = Analyze(job.string(), 1, dir_);
  EXPECT_EQ(one.run.exit_code, 1);
  ASSERT_NE(one.run.out.find("rank-3.pt.trace.json"), std::string::npos) << one.run.out;
  EXPECT_EQ(one.run.out.find("rank-6.pt.trace.json"), std::string::npos) << one.run.out;
  EXPECT_EQ(std::count(one.run.out.begin(), one.run.out.end(), '\n'), 1) << one.run.out;
  for (int jobs : {2, 8}) {
    Outputs many = Analyze(job.string(), jobs, dir_);
    EXPECT_EQ(many.run.exit_code, 1);
    EXPECT_EQ(many.run.out, one.run.out) << "--jobs " << jobs;
  }
}

// Out of memory on any of the reader's threads (the framer, a parse thread, a worker) or a thread
// that cannot start is the input's error: one line naming the file, exit 1, never a crash. main's
// handler said "plasmient: out of memory", naming nothing. Which allocation fails first moves
// with the limit, so the limits sweep from too little to start a thread to enough for some runs.
TEST_F(ParallelJobTest, OutOfMemoryNamesTheFile) {
  fs::path job = dir_ / "big";
  CommandResult s =
      RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 2 --steps 100 -o " + job.string());
  ASSERT_EQ(s.exit_code, 0) << s.out;
  const std::string rank_prefix = "plasmient: " + (job / "rank-").string();
  int limited = 0;
  for (int mb : {40, 60, 80, 100, 120, 160, 300}) {
    for (int jobs : {1, 2}) {
      CommandResult r = RunCommand("ulimit -v " + std::to_string(mb << 10) + "; exec " + PlasmientBinary() +
                                   " analyze " + job.string() + " -q --jobs " + std::to_string(jobs));
      std::string where = "ulimit -v " + std::to_string(mb) + " MiB, --jobs " + std::to_string(jobs);
      if (r.exit_code == 0) continue;
      ++limited;
      EXPECT_EQ(r.exit_code, 1) << where << ": " << r.out;
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << where << ": " << r.out;
      EXPECT_TRUE(r.out.starts_with(rank_prefix)) << where << ": " << r.out;
      EXPECT_TRUE(r.out.find("out of memory") != std::string::npos ||
                  r.out.find("cannot start a thread") != std::string::npos)
          << where << ": " << r.out;
    }
  }
  EXPECT_GT(limited, 0) << "no limit was small enough";
}

}  // namespace
}  // namespace plasmient::testing
