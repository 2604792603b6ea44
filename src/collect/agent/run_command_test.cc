#include "collect/agent/run_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace plasmient::collect {
namespace {

RunOptions Quiet() {
  RunOptions o;
  o.quiet = true;
  o.agent_path = "/nonexistent/libplasmient_agent.so";  // plain commands: no agent
  return o;
}

TEST(RunCommand, ReturnsExitCode) {
  EXPECT_EQ(RunCommand(Quiet(), {"sh", "-c", "exit 3"}), 3);
  EXPECT_EQ(RunCommand(Quiet(), {"true"}), 0);
}

TEST(RunCommand, SignalDeathIs128PlusSignal) {
  EXPECT_EQ(RunCommand(Quiet(), {"sh", "-c", "kill -TERM $$"}), 128 + SIGTERM);
  EXPECT_EQ(RunCommand(Quiet(), {"sh", "-c", "kill -KILL $$"}), 128 + SIGKILL);
}

TEST(RunCommand, MissingCommandIs127) {
  EXPECT_EQ(RunCommand(Quiet(), {"/nonexistent/plasmient-no-such-command"}), 127);
}

TEST(RunCommand, ForwardsSigtermToTheCommand) {
  // The command itself sends us SIGTERM, so the signal arrives while RunCommand runs, whatever the
  // load; RunCommand forwards it and reports the command's death by that signal (not a timeout:
  // the command would otherwise sleep 30 s and exit 0).
  EXPECT_EQ(RunCommand(Quiet(), {"sh", "-c", "kill -TERM $PPID; exec sleep 30"}), 128 + SIGTERM);
}

TEST(RunCommand, PassesOutDirToTheCommand) {
  RunOptions o = Quiet();
  o.out_dir = ::testing::TempDir() + "/run_out_" + std::to_string(getpid());
  EXPECT_EQ(RunCommand(
                o, {"sh", "-c",
                    "test \"$PLASMIENT_OUT_DIR\" = \"" + o.out_dir + "\" && test -d \"$PLASMIENT_OUT_DIR\""}),
            0);
}

TEST(AgentEnvironment, SetsInjectionPluginAndPreload) {
  RunOptions o;
  o.out_dir = "/o";
  o.job_id = "j1";
  o.nvml_period_ms = 50;
  auto env = AgentEnvironment({"PATH=/bin", "LD_PRELOAD=/x.so", "PLASMIENT_OUT_DIR=/old"}, o,
                              "/lib/libplasmient_agent.so");
  auto has = [&](const std::string& e) { return std::find(env.begin(), env.end(), e) != env.end(); };
  EXPECT_TRUE(has("PATH=/bin"));
  EXPECT_TRUE(has("PLASMIENT_OUT_DIR=/o"));
  EXPECT_FALSE(has("PLASMIENT_OUT_DIR=/old"));
  EXPECT_TRUE(has("PLASMIENT_JOB_ID=j1"));
  EXPECT_TRUE(has("PLASMIENT_NVML_PERIOD_MS=50"));
  EXPECT_TRUE(has("CUDA_INJECTION64_PATH=/lib/libplasmient_agent.so"));
  EXPECT_TRUE(has("NCCL_PROFILER_PLUGIN=/lib/libplasmient_agent.so"));
  EXPECT_TRUE(has("LD_PRELOAD=/lib/libplasmient_agent.so:/x.so"));
  EXPECT_TRUE(has("PLASMIENT_PERIOD_S=0")) << "run traces the whole run unless told otherwise";
  auto windowed = AgentEnvironment({"PLASMIENT_PERIOD_S=30"}, o, "/lib/libplasmient_agent.so");
  EXPECT_NE(std::find(windowed.begin(), windowed.end(), "PLASMIENT_PERIOD_S=30"), windowed.end());
  // No agent: only the output folder.
  auto plain = AgentEnvironment({"PATH=/bin"}, o, "");
  EXPECT_EQ(std::count_if(plain.begin(), plain.end(),
                          [](const std::string& e) { return e.rfind("CUDA_INJECTION64_PATH", 0) == 0; }),
            0);
}

// The launcher does not name a libcupti for NVTX: the build's copy next to the application's own
// (PyTorch's) would be a second CUPTI in the process, one the agent never attached to. The agent
// sets NVTX_INJECTION64_PATH at cuInit to the copy it opened.
TEST(AgentEnvironment, LeavesNvtxInjectionToTheAgent) {
  RunOptions o;
  o.out_dir = "/o";
  auto env = AgentEnvironment({"PATH=/bin"}, o, "/lib/libplasmient_agent.so");
  for (const std::string& e : env) EXPECT_NE(e.rfind("NVTX_INJECTION64_PATH=", 0), 0u) << e;
}

// Another tool's injection (Nsight Systems sets CUDA_INJECTION64_PATH) is replaced, and said.
TEST(AgentEnvironment, SaysWhenItReplacesAnotherTool) {
  RunOptions o;
  std::vector<std::string> notes;
  auto env = AgentEnvironment(
      {"CUDA_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so", "NCCL_PROFILER_PLUGIN=/opt/inspector.so"}, o,
      "/lib/libplasmient_agent.so", &notes);
  EXPECT_NE(std::find(env.begin(), env.end(), "CUDA_INJECTION64_PATH=/lib/libplasmient_agent.so"), env.end());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("CUDA_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"), std::string::npos);
  EXPECT_NE(notes[1].find("/opt/inspector.so"), std::string::npos);
  notes.clear();
  AgentEnvironment({"CUDA_INJECTION64_PATH=/lib/libplasmient_agent.so"}, o, "/lib/libplasmient_agent.so",
                   &notes);
  EXPECT_TRUE(notes.empty()) << "our own agent already set is not another tool";
}

}  // namespace
}  // namespace plasmient::collect
