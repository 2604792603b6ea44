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
  // Duty cycle: kernel activity (CUPTI) is collected for the last window_s seconds of every
  // period_s (PLASMIENT_WINDOW_S, PLASMIENT_PERIOD_S); each window and each stretch between
  // windows is its own file in the spool. period_s 0: one file for the whole run, in out_dir.
  // The defaults keep the expected overhead under 1% (docs/agent.md, "Overhead model").
  double window_s = 2;
  double period_s = 60;
  // Periods start at CLOCK_REALTIME multiples of period_s, so every rank windows the same
  // seconds (PLASMIENT_WINDOW_PHASE=wall, the default); `start`: from this process's start.
  bool phase_on_wall_clock = true;
  // PLASMIENT_SPOOL; unset: /var/spool/plasmient when it is a writable folder, else out_dir
  // (also when empty).
  std::string spool;
  bool windowed() const { return period_s > 0; }
};

using GetEnvFn = std::function<const char*(const char*)>;

// Reads the configuration through `get_env` (getenv in the agent; a map in tests).
AgentConfig ConfigFromEnv(const GetEnvFn& get_env, std::int64_t pid, const std::string& host);

// "<out_dir>/plasmient.rank3.host.1234.pltrace" (the rank part only when known): the whole-run file.
std::string TraceFilePath(const AgentConfig& config);

// A windowed process's file number `seq`: "<spool>/<job>-<rank>-<host>-<pid>-<seq>.pltrace",
// seq zero-padded to 6 digits so names sort; "nojob"/"norank" when unknown; characters other
// than letters, digits, '.' and '_' in the job and host become '_'.
std::string WindowFilePath(const AgentConfig& config, std::uint64_t seq);

// "<dir>/.<name>.part": where a file is written before it is renamed to `path`.
std::string PartPath(const std::string& path);

// On-demand windows (`plasmient capture`): a request is a control file in the spool that the
// agents' writer threads poll, "<spool>/.plasmient-capture-job-<job>" (every process of the job
// on the node) or "<spool>/.plasmient-capture-pid-<pid>" (one process), holding one line
// "<id> <seconds>": id is the request's CLOCK_REALTIME ns, unique per request. The job part is
// spelled as in WindowFilePath.
std::string CaptureRequestPath(const std::string& spool, const std::string& job);
std::string CaptureRequestPath(const std::string& spool, std::int64_t pid);
// Writes a request (a temporary file renamed into place). Empty on success, else why.
std::string WriteCaptureRequest(const std::string& path, std::int64_t id, double seconds);
struct CaptureRequest {
  std::int64_t id = 0;
  double seconds = 0;
};
// The request at `path`, or {} (id 0) when there is none, it does not parse, or it is not a
// regular file with one link owned by the agent's user or root (another user's request is none).
CaptureRequest ReadCaptureRequest(const std::string& path);

}  // namespace plasmient::collect
