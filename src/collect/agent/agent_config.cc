#include "collect/agent/agent_config.h"

#include <cstdlib>

namespace plasmient::collect {
namespace {

// The first of `names` that is set and parses as an integer, else `fallback`.
std::int32_t FirstInt(const GetEnvFn& get_env, std::initializer_list<const char*> names,
                      std::int32_t fallback, bool allow_negative = false) {
  for (const char* name : names) {
    const char* v = get_env(name);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (end != v && *end == '\0' && (n >= 0 || allow_negative) && n < (1L << 30) && n > -(1L << 30))
      return static_cast<std::int32_t>(n);
  }
  return fallback;
}

}  // namespace

AgentConfig ConfigFromEnv(const GetEnvFn& get_env, std::int64_t pid, const std::string& host) {
  AgentConfig c;
  c.pid = pid;
  c.host = host;
  if (const char* d = get_env("PLASMIENT_OUT_DIR"); d != nullptr && *d != '\0') c.out_dir = d;
  c.rank = FirstInt(get_env, {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"}, -1);
  c.local_rank = FirstInt(get_env, {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}, -1);
  c.world_size = FirstInt(get_env, {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"}, -1);
  for (const char* name : {"PLASMIENT_JOB_ID", "SLURM_JOB_ID"}) {
    const char* v = get_env(name);
    if (v != nullptr && *v != '\0') {
      c.job_id = v;
      break;
    }
  }
  c.nvml_period_ms = FirstInt(get_env, {"PLASMIENT_NVML_PERIOD_MS"}, 100);
  c.zstd_level = FirstInt(get_env, {"PLASMIENT_ZSTD_LEVEL"}, c.zstd_level, /*allow_negative=*/true);
  c.max_trace_mb = FirstInt(get_env, {"PLASMIENT_MAX_TRACE_MB"}, static_cast<std::int32_t>(c.max_trace_mb));
  return c;
}

std::string TraceFilePath(const AgentConfig& c) {
  std::string name = "plasmient.";
  if (c.rank >= 0) name += "rank" + std::to_string(c.rank) + ".";
  for (char ch : c.host) name.push_back(ch == '/' ? '_' : ch);
  name += '.';
  name += std::to_string(c.pid);
  name += ".pltrace";
  return c.out_dir + "/" + name;
}

}  // namespace plasmient::collect
