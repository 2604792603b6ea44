#include "collect/agent/agent_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "wire/file_format.h"

#include "wire/file_format.h"

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

// The value of `name` as seconds (>= 0), else `fallback`.
double Seconds(const GetEnvFn& get_env, const char* name, double fallback) {
  const char* v = get_env(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  double s = std::strtod(v, &end);
  return end != v && *end == '\0' && s >= 0 && s < 1e7 ? s : fallback;
}

constexpr const char* kDefaultSpool = "/var/spool/plasmient";

std::string NamePart(const std::string& text, const char* unknown) {
  if (text.empty()) return unknown;
  std::string out;
  for (char ch : text) {
    bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '.' || ch == '_';
    out.push_back(plain ? ch : '_');
  }
  return out;
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
  c.period_s = Seconds(get_env, "PLASMIENT_PERIOD_S", c.period_s);
  c.window_s = Seconds(get_env, "PLASMIENT_WINDOW_S", c.window_s);
  if (const char* phase = get_env("PLASMIENT_WINDOW_PHASE");
      phase != nullptr && std::strcmp(phase, "start") == 0)
    c.phase_on_wall_clock = false;
  if (c.window_s <= 0 || c.window_s > c.period_s) c.window_s = c.period_s;  // always in a window
  if (const char* d = get_env("PLASMIENT_SPOOL"); d != nullptr && *d != '\0') {
    c.spool = d;
  } else {
    c.spool = access(kDefaultSpool, W_OK | X_OK) == 0 ? kDefaultSpool : c.out_dir;
  }
  return c;
}

std::string TraceFilePath(const AgentConfig& c) {
  std::string name = "plasmient.";
  if (c.rank >= 0) name += "rank" + std::to_string(c.rank) + ".";
  for (char ch : c.host) name.push_back(ch == '/' ? '_' : ch);
  name += '.';
  name += std::to_string(c.pid);
  name += wire::kFileSuffix;
  return c.out_dir + "/" + name;
}

std::string WindowFilePath(const AgentConfig& c, std::uint64_t seq) {
  char number[24];
  std::snprintf(number, sizeof number, "%06llu", static_cast<unsigned long long>(seq));
  std::string rank = c.rank >= 0 ? std::to_string(c.rank) : "norank";
  return (c.spool.empty() ? c.out_dir : c.spool) + "/" + NamePart(c.job_id, "nojob") + "-" + rank + "-" +
         NamePart(c.host, "nohost") + "-" + std::to_string(c.pid) + "-" + number + wire::kFileSuffix;
}

std::string CaptureRequestPath(const std::string& spool, const std::string& job) {
  return spool + "/.plasmient-capture-job-" + NamePart(job, "nojob");
}

std::string CaptureRequestPath(const std::string& spool, std::int64_t pid) {
  return spool + "/.plasmient-capture-pid-" + std::to_string(pid);
}

std::string WriteCaptureRequest(const std::string& path, std::int64_t id, double seconds) {
  // The spool is shared by a group (mode 3770), where the kernel's protected_symlinks does not
  // apply: the temporary file gets an unpredictable name created with O_EXCL (mkstemp), so no
  // link planted there is written through, and the rename replaces whatever is at `path` (a
  // link included) without following it. The file is the requester's: agents read its owner.
  std::string tmp = path + ".XXXXXX";
  int fd = ::mkostemp(&tmp[0], O_CLOEXEC);
  if (fd < 0) return path + ": cannot create a request beside it: " + std::strerror(errno);
  char line[64];
  int n = std::snprintf(line, sizeof line, "%lld %.3f\n", static_cast<long long>(id), seconds);
  bool ok = n > 0 && ::fchmod(fd, 0644) == 0 && ::write(fd, line, static_cast<std::size_t>(n)) == n;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = path + ": cannot write: " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return why;
  }
  return {};
}

CaptureRequest ReadCaptureRequest(const std::string& path) {
  CaptureRequest r;
  // Only the agent's own user (or root) may turn its tracing on: the request file is its
  // writer's, and the spool is shared by a group. A link, a hard link or anything but a regular
  // file is no request.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return r;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
      (st.st_uid != ::geteuid() && st.st_uid != 0)) {
    ::close(fd);
    return r;
  }
  std::FILE* f = ::fdopen(fd, "r");
  if (f == nullptr) {
    ::close(fd);
    return r;
  }
  long long id = 0;
  double seconds = 0;
  if (std::fscanf(f, "%lld %lf", &id, &seconds) == 2 && id > 0 && seconds > 0 && seconds < 86400) {
    r.id = id;
    r.seconds = seconds;
  }
  std::fclose(f);
  return r;
}

std::string PartPath(const std::string& path) {
  std::size_t slash = path.rfind('/');
  std::size_t at = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(0, at) + "." + path.substr(at) + ".part";
}

}  // namespace plasmient::collect
