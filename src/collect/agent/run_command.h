// `plasmient run -- CMD`: starts CMD with the live agent attached and returns its exit status.
#pragma once

#include <string>
#include <vector>

namespace plasmient::collect {

struct RunOptions {
  std::string out_dir;      // PLASMIENT_OUT_DIR for the traced processes (created if absent)
  std::string agent_path;   // the agent .so; empty: next to this executable, ../lib/plasmient/, the build
  std::string job_id;       // PLASMIENT_JOB_ID, when set
  bool gemm_shapes = true;  // LD_PRELOAD the agent so cuBLAS calls are seen (shapes)
  bool nccl_plugin = true;  // NCCL_PROFILER_PLUGIN
  int nvml_period_ms = -1;  // PLASMIENT_NVML_PERIOD_MS when >= 0
  bool quiet = false;       // no notes on stderr
};

// The agent .so RunCommand would use, or "" when none is found.
std::string FindAgentLibrary(const RunOptions& options);

// The environment CMD gets: `base` (NAME=value strings) plus the agent variables. `agent_path`
// empty means "no agent" (no driver, or no .so): only PLASMIENT_OUT_DIR is set. Each variable of
// another tool it replaces (Nsight's CUDA_INJECTION64_PATH, another NCCL profiler plugin) adds a
// line to `notes` when given.
std::vector<std::string> AgentEnvironment(const std::vector<std::string>& base, const RunOptions& options,
                                          const std::string& agent_path,
                                          std::vector<std::string>* notes = nullptr);

// Runs argv (argv[0] looked up in PATH) and waits. SIGINT/SIGTERM received meanwhile are
// forwarded to CMD. Returns CMD's exit code, 128 + N when CMD died of signal N, 127 when it
// could not be started. With no CUDA driver on the machine it says so once and runs CMD plain.
int RunCommand(const RunOptions& options, const std::vector<std::string>& argv);

}  // namespace plasmient::collect
