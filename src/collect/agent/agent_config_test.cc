#include "collect/agent/agent_config.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace plasmient::collect
