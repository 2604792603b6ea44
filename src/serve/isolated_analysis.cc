#include "serve/isolated_analysis.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "job/analyze_job.h"
#include "serve/device_tier.h"
#include "store/clickhouse_outbox.h"
#include "whatif/activity_table.h"

namespace plasmient::serve {
namespace fs = std::filesystem;

namespace {

// The result file: "ok\n<samples bytes>\n<samples><batch>" or "error\n<message>".
constexpr std::string_view kOk = "ok\n", kError = "error\n";
constexpr auto kPollInterval = std::chrono::milliseconds(10);
// The child's exit status when it cannot write the result file.
constexpr int kNoResultExit = 3;

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// What the process has now (VmSize, VmData): the child inherits the daemon's mappings (its
// threads' stacks, malloc arenas), which the memory limit must not count.
std::int64_t StatusKb(std::string_view field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  std::int64_t kb = 0;
  while (std::fgets(line, sizeof line, f)) {
    std::string_view l(line);
    if (l.starts_with(field) && l.size() > field.size() && l[field.size()] == ':') {
      kb = std::strtoll(line + field.size() + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kb;
}

// Every descriptor but stdin, stdout and stderr; the child opens what it reads by path.
void CloseInheritedDescriptors() {
  if (::close_range(3, ~0U, 0) == 0) return;
  for (int fd = 3, n = static_cast<int>(::sysconf(_SC_OPEN_MAX)); fd < n; ++fd) ::close(fd);
}

void SetLimit(int resource, rlim_t value) {
  rlimit r{value, value};
  ::setrlimit(resource, &r);
}

std::string RunAnalysis(const std::vector<fs::path>& files, const verdict::AnalyzeOptions& options,
                        const ingest::OpenRules& rules, const store::JobContext& context) {
  try {
    verdict::AnalyzeOptions with_tables = options;
    with_tables.keep_activities = true;  // the store's lever rows project from them
    auto job = job::AnalyzeJobFiles(files, with_tables, rules);
    if (!job) {
      // A reader that ran out of memory here ran into the limit this process was given.
      std::string_view hint = job.error().message.find("out of memory") != std::string::npos
                                  ? " (the analysis memory limit, serve --analysis-memory-mb)"
                                  : "";
      return fmt::format("{}{}{}", kError, job.error().message, hint);
    }
    std::vector<RankSample> ranks = SampleJob(*job);
    if (std::all_of(ranks.begin(), ranks.end(),
                    [](const RankSample& s) { return s.kind == SampleKind::kDeviceTier; })) {
      // Device-tier samples only (between an agent's windows): no verdict, no rows.
      std::string samples = SerializeSamples(ranks);
      return fmt::format("{}{}\n{}", kOk, samples.size(), samples);
    }
    if (KernelWindows(files, rules)) {
      for (auto& s : ranks) {
        if (s.kind == SampleKind::kTrace) s.kind = SampleKind::kWindow;
      }
    }
    std::string samples = SerializeSamples(ranks, SampleTops(*job));
    std::string out = fmt::format("{}{}\n", kOk, samples.size());
    out += samples;
    out += store::ClickHouseOutbox::Serialize(store::BuildRows(*job, context));
    return out;
  } catch (const std::bad_alloc&) {
    return std::string(kError) + "out of memory (the analysis memory limit, serve --analysis-memory-mb)";
  } catch (const std::system_error& e) {  // a thread's stack is address space too
    return fmt::format("{}cannot start a thread: {} (the analysis memory limit, serve --analysis-memory-mb)",
                       kError, e.what());
  } catch (const std::exception& e) {
    return fmt::format("{}{}: {}", kError, files.empty() ? "" : files.front().string(), e.what());
  }
}

[[noreturn]] void Child(const std::vector<fs::path>& files, const verdict::AnalyzeOptions& options,
                        const ingest::OpenRules& rules, const store::JobContext& context,
                        const AnalysisLimits& limits, const fs::path& result_file) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the daemon gone, its analysis goes too
  // The daemon's descriptors stay with the daemon: a child holding the spool's lock or the metrics
  // socket after the daemon was killed (it dies a moment later) would refuse a restart that fast.
  CloseInheritedDescriptors();
  SetLimit(RLIMIT_CPU, static_cast<rlim_t>(limits.cpu_s));
  // Address space bounds reservations; data (private writable memory, Linux 4.7+) bounds what malloc
  // commits inside reservations the daemon already holds (its arenas).
  SetLimit(RLIMIT_AS, static_cast<rlim_t>((StatusKb("VmSize") << 10) + (limits.memory_mb << 20)));
  SetLimit(RLIMIT_DATA, static_cast<rlim_t>((StatusKb("VmData") << 10) + (limits.memory_mb << 20)));
  SetLimit(RLIMIT_CORE, 0);
  std::string out = RunAnalysis(files, options, rules, context);
  // Removed by the parent before the fork: O_EXCL refuses whatever else is there by now, a link included.
  int fd = ::open(result_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && WriteAll(fd, out) && ::close(fd) == 0;
  ::_exit(ok ? 0 : kNoResultExit);
}

std::string DescribeDeath(int status, const AnalysisLimits& limits) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGXCPU) {
      return fmt::format("the analysis used more than {} CPU-seconds (serve --analysis-cpu-s): stopped",
                         limits.cpu_s);
    }
    std::string what = sig == SIGABRT ? " (often the memory limit, serve --analysis-memory-mb)" : "";
    return fmt::format("the analysis was killed by signal {} ({}){}", sig, ::strsignal(sig), what);
  }
  return fmt::format("the analysis exited with status {} and no result", WEXITSTATUS(status));
}

Result<AnalysisOutput> ParseResult(const std::string& text, const fs::path& result_file) {
  std::string_view rest = text;
  if (!rest.starts_with(kOk)) return Fail("{}: unreadable analysis result", result_file.string());
  rest.remove_prefix(kOk.size());
  std::size_t eol = rest.find('\n');
  std::size_t n = 0;
  if (eol == std::string_view::npos ||
      std::sscanf(std::string(rest.substr(0, eol)).c_str(), "%zu", &n) != 1 || n > rest.size() - eol - 1) {
    return Fail("{}: unreadable analysis result", result_file.string());
  }
  rest.remove_prefix(eol + 1);
  AnalysisOutput out;
  auto samples = ParseSamples(rest.substr(0, n), &out.tops);
  if (!samples) return std::unexpected(samples.error());
  out.samples = std::move(*samples);
  auto batch = store::ClickHouseOutbox::Deserialize(rest.substr(n), result_file.string());
  if (!batch) return std::unexpected(batch.error());
  out.batch = std::move(*batch);
  return out;
}

Result<std::string> ReadWhole(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Fail("{}: cannot open: {}", path.string(), std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

AnalysisOutcome AnalyzeIsolated(const std::vector<fs::path>& files, const verdict::AnalyzeOptions& options,
                                const ingest::OpenRules& rules, const store::JobContext& context,
                                const AnalysisLimits& limits, const fs::path& result_file,
                                const std::function<bool()>& stop) {
  AnalysisOutcome outcome;
  std::error_code ec;
  fs::remove(result_file, ec);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    outcome.error = fmt::format("cannot start the analysis process: {}", std::strerror(errno));
    return outcome;
  }
  if (pid == 0) Child(files, options, rules, context, limits, result_file);

  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.timeout_s);
  int status = 0;
  while (true) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    bool stopping = stop && stop();
    if (stopping || std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      fs::remove(result_file, ec);
      if (stopping) {
        outcome.kind = AnalysisOutcome::Kind::kStopped;
      } else {
        outcome.error = fmt::format(
            "the analysis took longer than {} s (serve --analysis-timeout-s): stopped", limits.timeout_s);
      }
      return outcome;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoResultExit) {
    fs::remove(result_file, ec);
    outcome.kind = AnalysisOutcome::Kind::kNoResult;
    outcome.error = fmt::format("{}: the analysis could not write its result (a full or read-only disk)",
                                result_file.string());
    return outcome;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fs::remove(result_file, ec);
    outcome.error = DescribeDeath(status, limits);
    return outcome;
  }
  auto text = ReadWhole(result_file);
  fs::remove(result_file, ec);
  if (!text) {
    outcome.error = text.error().message;
    return outcome;
  }
  if (text->starts_with(kError)) {
    outcome.error = text->substr(kError.size());
    return outcome;
  }
  auto parsed = ParseResult(*text, result_file);
  if (!parsed) {
    outcome.error = parsed.error().message;
    return outcome;
  }
  outcome.kind = AnalysisOutcome::Kind::kOk;
  outcome.output = std::move(*parsed);
  return outcome;
}

}  // namespace plasmient::serve
