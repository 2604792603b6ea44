#include "collect/agent/agent_config.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "collect/agent/agent.h"

namespace plasmient::collect {
namespace {

GetEnvFn Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(AgentConfig, RankFromTheFirstLauncherVariableSet) {
  auto c = ConfigFromEnv(Env({{"SLURM_PROCID", "5"},
                              {"OMPI_COMM_WORLD_RANK", "3"},
                              {"LOCAL_RANK", "1"},
                              {"WORLD_SIZE", "16"},
                              {"SLURM_JOB_ID", "777"},
                              {"PLASMIENT_OUT_DIR", "/tmp/out"}}),
                         42, "node7");
  EXPECT_EQ(c.rank, 3);  // OMPI before SLURM; RANK unset
  EXPECT_EQ(c.local_rank, 1);
  EXPECT_EQ(c.world_size, 16);
  EXPECT_EQ(c.job_id, "777");
  EXPECT_EQ(c.out_dir, "/tmp/out");
  EXPECT_EQ(TraceFilePath(c), "/tmp/out/plasmient.rank3.node7.42.pltrace");
}

TEST(AgentConfig, DefaultsAndBadValues) {
  auto c = ConfigFromEnv(Env({{"RANK", "x1"},
                              {"PLASMIENT_JOB_ID", "j"},
                              {"SLURM_JOB_ID", "s"},
                              {"PLASMIENT_NVML_PERIOD_MS", "250"}}),
                         9, "h");
  EXPECT_EQ(c.rank, -1);
  EXPECT_EQ(c.job_id, "j");
  EXPECT_EQ(c.nvml_period_ms, 250);
  EXPECT_EQ(c.zstd_level, -3);
  EXPECT_EQ(c.max_trace_mb, 8192);
  EXPECT_EQ(ConfigFromEnv(Env({{"PLASMIENT_MAX_TRACE_MB", "0"}}), 1, "h").max_trace_mb, 0);
  EXPECT_EQ(ConfigFromEnv(Env({{"PLASMIENT_ZSTD_LEVEL", "-1"}}), 1, "h").zstd_level, -1);
  EXPECT_EQ(ConfigFromEnv(Env({{"RANK", "-1"}}), 1, "h").rank, -1);
  EXPECT_EQ(TraceFilePath(c), "./plasmient.h.9.pltrace");
}

TEST(AgentConfig, DutyCycleAndWindowNames) {
  auto c = ConfigFromEnv(Env({{"PLASMIENT_WINDOW_S", "0.5"},
                              {"PLASMIENT_PERIOD_S", "30"},
                              {"PLASMIENT_SPOOL", "/spool"},
                              {"PLASMIENT_JOB_ID", "train/42 a"},
                              {"RANK", "7"}}),
                         1234, "gpu-node-3");
  EXPECT_TRUE(c.windowed());
  EXPECT_DOUBLE_EQ(c.window_s, 0.5);
  EXPECT_DOUBLE_EQ(c.period_s, 30);
  EXPECT_EQ(WindowFilePath(c, 12), "/spool/train_42_a-7-gpu_node_3-1234-000012.pltrace");
  EXPECT_EQ(PartPath(WindowFilePath(c, 12)), "/spool/.train_42_a-7-gpu_node_3-1234-000012.pltrace.part");
  auto d = ConfigFromEnv(Env({{"PLASMIENT_OUT_DIR", "/out"}, {"PLASMIENT_WINDOW_S", "-1"}}), 5, "h");
  EXPECT_DOUBLE_EQ(d.period_s, 60);
  EXPECT_DOUBLE_EQ(d.window_s, 2) << "a bad value keeps the default";
  EXPECT_TRUE(d.phase_on_wall_clock) << "ranks window the same seconds by default";
  EXPECT_FALSE(ConfigFromEnv(Env({{"PLASMIENT_WINDOW_PHASE", "start"}}), 1, "h").phase_on_wall_clock);
  EXPECT_EQ(WindowFilePath(d, 0).substr(WindowFilePath(d, 0).rfind('/')), "/nojob-norank-h-5-000000.pltrace");
  // A window longer than the period, or none: always in a window.
  EXPECT_DOUBLE_EQ(ConfigFromEnv(Env({{"PLASMIENT_WINDOW_S", "90"}}), 1, "h").window_s, 60);
  EXPECT_FALSE(ConfigFromEnv(Env({{"PLASMIENT_PERIOD_S", "0"}}), 1, "h").windowed());
}

TEST(AgentConfig, CaptureRequests) {
  EXPECT_EQ(CaptureRequestPath("/spool", "train/42"), "/spool/.plasmient-capture-job-train_42");
  EXPECT_EQ(CaptureRequestPath("/spool", std::int64_t{77}), "/spool/.plasmient-capture-pid-77");
  std::string path = ::testing::TempDir() + "/capture_request_" + std::to_string(getpid());
  EXPECT_EQ(ReadCaptureRequest(path).id, 0) << "no request";
  ASSERT_EQ(WriteCaptureRequest(path, 1234567, 2.5), "");
  CaptureRequest r = ReadCaptureRequest(path);
  EXPECT_EQ(r.id, 1234567);
  EXPECT_DOUBLE_EQ(r.seconds, 2.5);
  ASSERT_EQ(WriteCaptureRequest(path, 1, -3), "");
  EXPECT_EQ(ReadCaptureRequest(path).id, 0) << "a negative length is no request";
  std::remove(path.c_str());
  EXPECT_NE(WriteCaptureRequest("/nonexistent/dir/x", 1, 1), "");
}

// Issue 36: `capture` wrote ".<request>.tmp" with fopen(…, "w"), so a link planted at that name
// in the group-writable spool made it overwrite any file the requester (root) could write.
TEST(AgentConfig, CaptureRequestsWriteThroughNoLink) {
  std::string dir = ::testing::TempDir() + "/capture_links_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::string victim = dir + "/victim", path = CaptureRequestPath(dir, "j1");
  { std::ofstream(victim) << "secret\n"; }
  std::filesystem::create_symlink(victim, path + ".tmp");
  std::filesystem::create_symlink(victim, path);
  ASSERT_EQ(WriteCaptureRequest(path, 99, 1.5), "");
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "secret\n");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(ReadCaptureRequest(path).id, 99);
  // Another user's request is none (checked where the test can make one: as root).
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(path.c_str(), 12345, 12345), 0);
    EXPECT_EQ(ReadCaptureRequest(path).id, 0);
    ASSERT_EQ(::chown(path.c_str(), 0, 0), 0);
  }
  std::filesystem::create_hard_link(path, dir + "/second-name");
  EXPECT_EQ(ReadCaptureRequest(path).id, 0) << "a hard-linked request is none";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::collect
