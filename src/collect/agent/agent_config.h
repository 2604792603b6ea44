// Agent configuration from the environment of the traced process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace plasmient::collect {

struct AgentConfig {
  std::string out_dir = ".";     // PLASMIENT_OUT_DIR
  std::int32_t rank = -1;        // RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID, PMI_RANK
  std::int32_t local_rank = -1;  // LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID
  std::int32_t world_size = -1;  // WORLD_SIZE, OMPI_COMM_WORLD_SIZE, SLURM_NTASKS
  std::string host;              // gethostname
  std::string job_id;            // PLASMIENT_JOB_ID, SLURM_JOB_ID
  std::int64_t pid = 0;
  int nvml_period_ms = 100;  // PLASMIENT_NVML_PERIOD_MS; 0 switches NVML off
  // PLASMIENT_ZSTD_LEVEL; 0 stores chunks uncompressed. -3 (zstd's fast mode) keeps the writer
  // above 10 M records/s with about the ratio of level 1 on agent records (bench/agent_bench).
  int zstd_level = -3;
  // PLASMIENT_MAX_TRACE_MB; the file stops growing there (records counted as dropped). 0: no cap.
  std::int64_t max_trace_mb = 8192;
};

using GetEnvFn = std::function<const char*(const char*)>;

// Reads the configuration through `get_env` (getenv in the agent; a map in tests).
AgentConfig ConfigFromEnv(const GetEnvFn& get_env, std::int64_t pid, const std::string& host);

// "<out_dir>/plasmient.rank3.host.1234.pltrace" (the rank part only when known).
std::string TraceFilePath(const AgentConfig& config);

}  // namespace plasmient::collect
