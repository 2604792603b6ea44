#include "serve/serve.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "base/bounded_name.h"
#include "base/replace_file.h"
#include "base/text.h"
#include "base/time_units.h"
#include "ingest/read_trace.h"
#include "ingest/trace_kinds.h"
#include "job/analyze_job.h"
#include "serve/cluster_watch.h"
#include "store/record.h"

namespace plasmient::serve {
namespace fs = std::filesystem;

namespace {

// One line of serve's log, its text escaped (base/bounded_name.h: EscapeForLog): a spool name
// holding a newline or an escape sequence can neither forge a line nor reach a terminal.
template <typename... Args>
void Log(fmt::format_string<Args...> format, Args&&... args) {
  std::string line =
      "plasmient serve: " + EscapeForLog(fmt::format(format, std::forward<Args>(args)...)) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

// The metrics' state a previous run saved, if any; one that cannot be read is reported and the
// counters start from 0 (Prometheus takes that as a counter reset).
void LoadMetrics(const fs::path& path, MetricsRegistry& metrics) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      Log("{}: cannot open: {}; counters start from 0", path.string(), std::strerror(errno));
    return;
  }
  std::string text;
  char buf[1 << 16];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  if (auto loaded = metrics.LoadState(text); !loaded)
    Log("{}: {}; counters start from 0", path.string(), loaded.error().message);
}

std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The daemon died this many times analyzing one entry: it is set aside, not retried forever.
constexpr int kMaxAttempts = 2;
// Beyond the analysis time limit, how long /healthz waits for progress before saying unhealthy.
constexpr double kHealthSlackS = 10;
// After a failed store or outbox write, the pause before the entry is tried again.
constexpr auto kStoreRetry = std::chrono::seconds(1);
// Expositions smaller than this are sent uncompressed (about 20 job-ranks of series).
constexpr std::size_t kCompressMinBytes = 64 << 10;

// Before the content is hashed, each file must be a trace by its size, layout and first bytes:
// a file with holes (sparse) is refused unread, and bytes no reader takes fail at once.
Status CheckInputFile(const fs::path& file, const ingest::OpenRules& rules) {
  auto f = ingest::InputFile::Open(file.string(), rules);
  if (!f) return std::unexpected(f.error());
  off_t hole = ::lseek(f->fd(), 0, SEEK_HOLE);
  if (hole >= 0 && hole < f->size()) {
    return plasmient::Fail("{}: a sparse file ({} bytes, a hole at byte {}): refused", file.string(),
                           f->size(), static_cast<std::int64_t>(hole));
  }
  auto format = ingest::DetectFormat(file.string(), rules);
  if (!format) return std::unexpected(format.error());
  if (*format == ingest::Format::kUnknown) {
    return plasmient::Fail("{}: not a trace (neither JSON, gzip, SQLite nor Plasmient native) at byte 0",
                           file.string());
  }
  return Ok();
}

// The state folder holds the lock, the store and the outbox: it must be a folder of serve's own,
// never a link another user planted (the writes would follow it). In a spool that others may
// write, only the sticky bit stops them renaming it (or done/, failed/) after this check.
Status CheckStateFolder(const fs::path& spool, const fs::path& state) {
  if (::mkdir(state.c_str(), 0755) != 0 && errno != EEXIST) {
    return plasmient::Fail("{}: cannot create: {}", state.string(), std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(state.c_str(), &st) != 0) {
    return plasmient::Fail("{}: cannot stat: {}", state.string(), std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    return plasmient::Fail("{}: {}, not a folder: refused (serve keeps its state there)", state.string(),
                           ingest::FileKindName(st.st_mode));
  }
  if (st.st_uid != ::geteuid()) {
    return plasmient::Fail("{}: owned by uid {}, not by serve (uid {}): refused", state.string(), st.st_uid,
                           ::geteuid());
  }
  struct stat spool_st {};
  if (::stat(spool.c_str(), &spool_st) == 0 && (spool_st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
      (spool_st.st_mode & S_ISVTX) == 0) {
    Log("warning: {} is writable by other users and not sticky (chmod +t): they can "
        "rename done/, failed/ and .plasmient/ (docs/fleet.md, \"Hostile input\")",
        spool.string());
  }
  return Ok();
}

}  // namespace

Result<std::pair<std::string, int>> ParseListen(std::string_view text) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return Fail("--listen {}: expected HOST:PORT", text);
  std::string_view host = text.substr(0, colon), port_text = text.substr(colon + 1);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  auto port = ParseInt<int>(port_text);
  if (!port || *port < 0 || *port > 65535) return Fail("--listen {}: bad port", text);
  return std::pair{std::string(host), *port};
}

ServeDaemon::ServeDaemon(ServeOptions options)
    : options_(std::move(options)), metrics_(options_.max_jobs_in_metrics, options_.counter_hold_s) {
  if (options_.host.empty()) options_.host = store::LocalHostName();
  options_.host = BoundLabel(options_.host);
}

ServeDaemon::~ServeDaemon() {
  Stop();
  Wait();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status ServeDaemon::LockSpool(const fs::path& state) {
  fs::path path = state / "lock";
  lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) return plasmient::Fail("{}: cannot open: {}", path.string(), std::strerror(errno));
  auto holder = [&] {
    char pid[32] = {};
    ssize_t n = ::pread(lock_fd_, pid, sizeof pid - 1, 0);
    return n > 0 ? fmt::format(" (pid {})", std::string_view(pid, static_cast<std::size_t>(n)))
                 : std::string();
  };
  // A serve just told to stop holds the lock until it has exited: a restart right after it waits
  // for it (polling, up to lock_wait_ms) rather than refusing.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.lock_wait_ms);
  bool said = false;
  while (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      return plasmient::Fail("{}: cannot lock: {}", path.string(), std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) {
      return plasmient::Fail(
          "--spool {}: another plasmient serve is using this spool{}, still after waiting {:.0f} s for it to "
          "exit; one per spool",
          options_.spool.string(), holder(), options_.lock_wait_ms / 1e3);
    }
    if (!said) {
      Log("--spool {}: waiting up to {:.0f} s for the serve holding it{} to exit", options_.spool.string(),
          options_.lock_wait_ms / 1e3, holder());
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::string pid = std::to_string(::getpid());
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    return plasmient::Fail("{}: cannot write", path.string());
  }
  return Ok();
}

Status ServeDaemon::Start() {
  std::error_code ec;
  if (!fs::is_directory(options_.spool, ec))
    return plasmient::Fail("--spool {}: no such folder", options_.spool.string());
  fs::path state = options_.spool / ".plasmient";
  PLASMIENT_TRY(CheckStateFolder(options_.spool, state));
  state_ = state;
  PLASMIENT_TRY(LockSpool(state));
  owner_ = fmt::format("{}:{}", options_.host, fs::weakly_canonical(options_.spool, ec).string());
  Progress();
  workers_ = options_.workers > 0 ? options_.workers
                                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options_.analyze.cores = job::CoresEach(static_cast<std::size_t>(workers_));  // each analysis its share
  marks_ = std::make_unique<InProgressMarks>(state / "in-progress");
  marks_->Load();
  LoadMetrics(state / "metrics", metrics_);
  db_path_ = options_.db_path.empty() ? (state / "store.sqlite").string() : options_.db_path;
  auto db = store::SqliteStore::Open(db_path_);
  if (!db) return std::unexpected(db.error());
  db_ = std::move(*db);
  if (options_.clickhouse) {
    auto ch = store::ClickHouseStore::Open(*options_.clickhouse);
    if (!ch) return std::unexpected(ch.error());
    outbox_ = std::make_unique<store::ClickHouseOutbox>(state / "clickhouse-outbox",
                                                        options_.outbox_max_bytes, std::move(*ch));
    PLASMIENT_TRY(outbox_->Open());
  }

  HttpLimits limits;
  limits.workers = options_.http_threads;
  limits.head_timeout = std::chrono::seconds(options_.http_read_timeout_s);
  limits.write_timeout = std::chrono::seconds(options_.http_read_timeout_s);
  limits.compress_min_bytes = kCompressMinBytes;  // a smaller one costs more to compress than it saves
  http_ = std::make_unique<HttpServer>(limits, [this](const HttpRequest& req) {
    HttpResponse res;
    if (req.path == "/metrics") {
      ++counters_.scrapes;
      res.content_type = "text/plain; version=0.0.4; charset=utf-8";
      // The analyses' series are shared by every scrape until they change (no copy per scrape,
      // one gzip); only the daemon's own figures are rendered each time.
      res.front = metrics_.Series();
      res.body = MetricsRegistry::RenderSelf(SelfMetrics());
    } else if (req.path == "/healthz") {
      std::string why = Unhealthy();
      if (!why.empty()) res.status = 503;
      res.body = why.empty() ? "ok\n" : why + "\n";
    } else if (req.path == "/") {
      res.body = "plasmient serve: metrics at /metrics\n";
    } else {
      res.status = 404;
      res.body = "not found\n";
    }
    return res;
  });
  PLASMIENT_TRY(http_->Start(options_.listen_host, options_.listen_port));
  port_ = http_->port();
  if (outbox_) outbox_->Start();
  pool_ = std::make_unique<WorkerPool>(workers_, static_cast<std::size_t>(workers_),
                                       [] { LowerThreadPriority(); });
  ingest_thread_ = std::thread([this] { IngestLoop(); });
  if (options_.cluster_every_s > 0) cluster_thread_ = std::thread([this] { ClusterLoop(); });
  return Ok();
}

// Its own connection to the store: a query over a large job never holds up the ingest loop.
void ServeDaemon::ClusterLoop() {
  fleet::ClusterWatchState seen;
  std::unique_ptr<store::QueryableStore> store;
  std::string last_error;
  auto period = std::chrono::duration<double>(options_.cluster_every_s);
  while (!stop_) {
    if (!store) {
      Result<std::unique_ptr<store::QueryableStore>> opened =
          options_.clickhouse
              ? Result<std::unique_ptr<store::QueryableStore>>(
                    store::ClickHouseStore::Open(*options_.clickhouse))
              : Result<std::unique_ptr<store::QueryableStore>>(store::SqliteStore::Open(db_path_));
      if (opened) store = std::move(*opened);
    }
    std::vector<std::string> errors;
    // Jobs with rows in the last day: the watch's first round after a restart reads no further back.
    std::int64_t since_ns = NowNs() - std::int64_t{86400} * kNsPerS;
    auto round = store ? WatchStoredClusters(*store, options_.analyze, since_ns, seen, metrics_, &errors)
                       : Result<std::int64_t>(plasmient::Fail("{}: the store cannot be opened", db_path_));
    if (!round) errors.push_back(round.error().message);
    std::string error = errors.empty() ? "" : "cluster: " + errors.front();
    if (error != last_error && !error.empty()) Log("{}", error);
    last_error = error;
    if (!round) store.reset();
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, period, [&] { return stop_.load(); });
  }
}

void ServeDaemon::Stop() {
  stop_ = true;
  cv_.notify_all();
  if (http_) http_->Stop();
}

void ServeDaemon::Wait() {
  if (ingest_thread_.joinable()) ingest_thread_.join();
  if (cluster_thread_.joinable()) cluster_thread_.join();
  if (outbox_) outbox_->Stop();
}

void ServeDaemon::Progress() { last_progress_ns_ = SteadyNs(); }

void ServeDaemon::SetProblem(Problem p, std::string why) {
  std::lock_guard lock(problems_mu_);
  std::string& slot = problems_[static_cast<int>(p)];
  if (slot == why) return;
  if (why.empty()) {
    Log("recovered: {}", slot);
  } else {
    Log("{}", why);
  }
  slot = std::move(why);
}

bool ServeDaemon::HasProblem(Problem p) const {
  std::lock_guard lock(problems_mu_);
  return !problems_[static_cast<int>(p)].empty();
}

void ServeDaemon::StoreFailed(Problem p, const std::string& why) {
  ++counters_.store_errors;
  SetProblem(p, why);
  // SQLite keeps a handle it opened read-only (the file was read-only then) read-only for good:
  // the store is opened again for the retry.
  if (p == Problem::kStore) db_.reset();
  Pause();
}

void ServeDaemon::Pause() {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, kStoreRetry, [&] { return stop_.load(); });
}

void ServeDaemon::Moved(const Status& moved) {
  if (moved) return SetProblem(Problem::kMove, {});
  // done/ or failed/ cannot take it (a full disk, a link planted there): it stays in the spool.
  SetProblem(Problem::kMove, moved.error().message);
  Pause();
}

Status ServeDaemon::SaveMetrics() {
  return ReplaceFile(state_ / "metrics", metrics_.SaveState(),
                     {.mode = 0600, .durable = true, .temp_suffix = ".tmp"});
}

store::SqliteStore* ServeDaemon::Store() {
  if (!db_) {
    auto db = store::SqliteStore::Open(db_path_);
    if (!db) {
      StoreFailed(Problem::kStore, db.error().message);
      return nullptr;
    }
    db_ = std::move(*db);
  }
  return db_.get();
}

std::string ServeDaemon::Unhealthy() const {
  {
    std::lock_guard lock(problems_mu_);
    for (const auto& why : problems_) {
      if (!why.empty()) return "unhealthy: " + why;
    }
  }
  double idle_s = NsToSeconds(SteadyNs() - last_progress_ns_.load());
  if (idle_s <= options_.limits.timeout_s + kHealthSlackS) return {};
  return fmt::format("unhealthy: no progress for {:.0f} s (the analysis time limit is {} s)", idle_s,
                     options_.limits.timeout_s);
}

std::vector<SelfMetric> ServeDaemon::SelfMetrics() {
  std::vector<SelfMetric> self = {
      {"plasmient_serve_traces_analyzed_total", "counter", "Spool entries analyzed and recorded.",
       static_cast<double>(counters_.analyzed.load())},
      {"plasmient_serve_traces_failed_total", "counter", "Spool entries moved to failed/.",
       static_cast<double>(counters_.failed.load())},
      {"plasmient_serve_traces_duplicate_total", "counter",
       "Spool entries already recorded (same content), not counted again.",
       static_cast<double>(counters_.duplicates.load())},
      {"plasmient_serve_store_errors_total", "counter", "Failed writes to the stores.",
       static_cast<double>(counters_.store_errors.load())},
      {"plasmient_serve_traces_vanished_total", "counter",
       "Spool entries removed while being taken (forgotten, not failed).",
       static_cast<double>(counters_.vanished.load())},
      {"plasmient_serve_traces_changed_total", "counter",
       "Spool entries whose files changed after they were hashed (analyzed again).",
       static_cast<double>(counters_.changed.load())},
      {"plasmient_serve_store_writable", "gauge",
       "0 while the SQLite store (or the ClickHouse outbox) cannot be written; /healthz says why.",
       HasProblem(Problem::kStore) || HasProblem(Problem::kOutbox) ? 0.0 : 1.0},
      {"plasmient_serve_spool_readable", "gauge",
       "0 while the spool folder cannot be read; /healthz says why.",
       HasProblem(Problem::kSpool) ? 0.0 : 1.0},
      {"plasmient_serve_healthy", "gauge", "1 when /healthz answers ok.", Unhealthy().empty() ? 1.0 : 0.0},
      {"plasmient_serve_queue_depth", "gauge", "Ready spool entries not taken for analysis yet.",
       static_cast<double>(counters_.queue_depth.load())},
      {"plasmient_serve_workers", "gauge", "Analyses that may run at once (--workers).",
       static_cast<double>(workers_)},
      {"plasmient_serve_workers_busy", "gauge", "Workers analyzing an entry now.",
       static_cast<double>(pool_ ? pool_->busy() : 0)},
      {"plasmient_serve_pool_queued", "gauge",
       "Entries prepared and waiting for a worker (at most --workers; the rest wait in the spool).",
       static_cast<double>(pool_ ? pool_->queued() : 0)},
      {"plasmient_serve_analysis_seconds_total", "counter", "Wall time spent analyzing.",
       counters_.analysis_seconds.load()},
      {"plasmient_serve_scrapes_total", "counter", "Requests to /metrics.",
       static_cast<double>(counters_.scrapes.load())},
      {"plasmient_serve_jobs_in_metrics", "gauge", "Jobs with series in this exposition (bounded).",
       static_cast<double>(metrics_.jobs())},
  };
  {
    std::lock_guard lock(waiting_mu_);
    self.push_back({"plasmient_serve_job_waiting_entries", "gauge",
                    "Ready spool entries of the job not taken for analysis yet (the --max-jobs largest).", 0,
                    "plasmient_job", waiting_by_job_});
  }
  if (outbox_) {
    const auto& c = outbox_->counters();
    self.push_back({"plasmient_clickhouse_outbox_files", "gauge",
                    "Analyses waiting in the ClickHouse outbox.",
                    static_cast<double>(c.pending_files.load())});
    self.push_back({"plasmient_clickhouse_outbox_bytes", "gauge", "Bytes waiting in the ClickHouse outbox.",
                    static_cast<double>(c.pending_bytes.load())});
    self.push_back({"plasmient_clickhouse_sent_jobs_total", "counter", "Analyses inserted into ClickHouse.",
                    static_cast<double>(c.sent_jobs.load())});
    self.push_back({"plasmient_clickhouse_overflow_jobs_total", "counter",
                    "Analyses dropped because the outbox was full.",
                    static_cast<double>(c.overflow_jobs.load())});
    self.push_back({"plasmient_clickhouse_send_failures_total", "counter", "Failed batch inserts (retried).",
                    static_cast<double>(c.send_failures.load())});
    self.push_back({"plasmient_clickhouse_up", "gauge", "1 when the last ClickHouse request succeeded.",
                    c.reachable.load() ? 1.0 : 0.0});
  }
  return self;
}

void ServeDaemon::IngestLoop() {
  LowerThreadPriority();  // hashing and scanning yield to /metrics too
  while (!stop_) {
    Progress();
    if (options_.live) metrics_.SetLive(options_.host, options_.live->Poll());
    std::size_t total = 0;
    if (int fd = ::open(options_.spool.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
      ::close(fd);
      SetProblem(Problem::kSpool, {});
    } else {
      SetProblem(Problem::kSpool, fmt::format("{}: the spool cannot be read: {}", options_.spool.string(),
                                              std::strerror(errno)));
    }
    RecordFinished();
    if (stop_) break;
    Dispatch(ListReady(options_.spool, SIZE_MAX, &total, options_.spool_rules));
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms),
                 [&] { return stop_.load() || finished_.load() != finished_seen_; });
  }
  // The analyses under way are killed (stop_); their entries stay in the spool, unmarked: a
  // stop is not a crash.
  pool_->Shutdown();
  for (auto& [job, tasks] : in_flight_) {
    for (auto& t : tasks) marks_->Unmark(t->entry.name);
  }
  (void)marks_->Write();
}

bool ServeDaemon::Throttled() const {
  return HasProblem(Problem::kStore) || HasProblem(Problem::kOutbox) || HasProblem(Problem::kMove);
}

void ServeDaemon::Dispatch(const std::vector<SpoolEntry>& ready) {
  std::vector<std::string> names;
  std::vector<const SpoolEntry*> waiting;
  std::vector<std::string> jobs;
  std::map<std::string, std::int64_t> waiting_by_job;
  for (const auto& e : ready) {
    names.push_back(e.name);
    if (in_flight_names_.contains(e.name)) continue;
    waiting.push_back(&e);
    jobs.push_back(JobIdOf(e));
    ++waiting_by_job[jobs.back()];
  }
  marks_->KeepCrashedOnly(names);
  std::erase_if(last_turn_, [&](const auto& kv) {
    return !waiting_by_job.contains(kv.first) && !in_flight_.contains(kv.first);
  });
  counters_.queue_depth = static_cast<std::int64_t>(waiting.size());
  // Published before the entries are prepared (hashing a large one takes a while), then again
  // while they are taken (at most every 50 ms: a spool of thousands of jobs sorts them each time)
  // and at the end, so that a scrape during a long scan sees what waits now, not at the last scan.
  PublishWaiting(waiting_by_job);
  auto published = std::chrono::steady_clock::now();
  for (std::size_t i : FairOrder(jobs, last_turn_)) {
    // Full: the entry stays in the spool (the queue is the spool) and is taken on a later scan.
    if (stop_ || pool_->queued() >= static_cast<std::size_t>(workers_)) break;
    // While a store, the outbox or a move fails, one entry at a time: the retry goes first.
    if (Throttled() && !in_flight_.empty()) break;
    const SpoolEntry& entry = *waiting[i];
    std::shared_ptr<Task> task;
    try {
      task = Prepare(entry);
    } catch (const std::exception& ex) {  // a library's exception must not stop the daemon
      Fail(entry, fmt::format("{}: {}", entry.path.string(), ex.what()));
    }
    Progress();
    --counters_.queue_depth;
    --waiting_by_job[jobs[i]];
    if (auto now = std::chrono::steady_clock::now(); now - published >= std::chrono::milliseconds(50)) {
      PublishWaiting(waiting_by_job);
      published = now;
    }
    if (!task) {
      if (Throttled()) break;
      continue;
    }
    last_turn_[task->job] = task->turn = ++turn_;
    in_flight_[task->job].push_back(task);
    in_flight_names_.insert(entry.name);
    if (options_.verbose) {
      Log("taken {} (job {}, turn {})", entry.name, task->job, task->turn);
    }
    pool_->TrySubmit([this, task](int worker) { Analyze(*task, worker); });
  }
  PublishWaiting(waiting_by_job);
}

void ServeDaemon::PublishWaiting(const std::map<std::string, std::int64_t>& waiting_by_job) {
  std::vector<std::pair<std::string, double>> by_job;
  for (const auto& [job, n] : waiting_by_job) {
    if (n > 0) by_job.emplace_back(job, static_cast<double>(n));
  }
  std::sort(by_job.begin(), by_job.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (by_job.size() > options_.max_jobs_in_metrics) by_job.resize(options_.max_jobs_in_metrics);
  std::sort(by_job.begin(), by_job.end());
  std::lock_guard lock(waiting_mu_);
  waiting_by_job_ = std::move(by_job);
}

void ServeDaemon::Fail(const SpoolEntry& entry, std::string_view error) {
  // Removed from the spool while it was being taken (a folder deleted mid-scan): nothing to fail.
  if (struct stat st{}; ::lstat(entry.path.c_str(), &st) != 0 && errno == ENOENT) {
    ++counters_.vanished;
    Log("{}: removed from the spool while it was taken ({}): forgotten", entry.name, error);
    return;
  }
  ++counters_.failed;
  Log("{} failed: {}", entry.name, error);
  Moved(FailEntry(entry, options_.spool, error));
}

std::shared_ptr<ServeDaemon::Task> ServeDaemon::Prepare(const SpoolEntry& entry) {
  if (!entry.refusal.empty()) {
    Fail(entry, entry.refusal);
    return nullptr;
  }
  if (!entry.is_folder && !IsTraceFileName(entry.name)) {
    Fail(entry, fmt::format("{}: not a trace file (expected {})", entry.name, ingest::TraceSuffixList()));
    return nullptr;
  }
  // Every component below the spool is opened without following a link (a job folder swapped for
  // a link after it was listed is refused).
  const ingest::OpenRules rules{.no_follow = true, .beneath = options_.spool.string()};
  for (const auto& f : entry.files) {
    if (auto s = CheckInputFile(f, rules); !s) {
      Fail(entry, s.error().message);
      return nullptr;
    }
  }
  std::vector<store::FileIdentity> identities;
  auto key = HashEntry(
      entry, rules, [this] { return stop_.load(); }, &identities);
  if (!key) {
    if (!stop_) Fail(entry, key.error().message);  // cut short by SIGTERM: the entry stays for the next run
    return nullptr;
  }
  store::SqliteStore* store = Store();
  if (!store) return nullptr;
  if (SeenBefore(*store, *key, entry) != Seen::kNew) return nullptr;
  auto marker_labels = ReadMarkerLabels(entry, rules);
  if (!marker_labels) {
    Fail(entry, marker_labels.error().message);
    return nullptr;
  }
  auto task = std::make_shared<Task>();
  task->entry = entry;
  task->job = JobIdOf(entry);
  task->identities = std::move(identities);
  store::JobContext& ctx = task->context;
  ctx.job_key = *key;
  ctx.job_id = BoundLabel(task->job);
  ctx.host = options_.host;
  ctx.labels = options_.labels;
  for (auto& [k, v] : *marker_labels) {
    if (k == "job") {
      ctx.job_id = v;
      continue;
    }
    std::erase_if(ctx.labels, [&](const auto& l) { return l.first == k; });
    ctx.labels.emplace_back(k, v);
  }
  for (const auto& f : entry.files) ctx.inputs.push_back(f.filename().string());
  // An entry the daemon died analyzing kMaxAttempts times is set aside, not retried forever.
  if (int attempts = marks_->CrashedAttempts(entry.name); attempts >= kMaxAttempts) {
    marks_->Unmark(entry.name);
    Fail(entry, fmt::format("{}: the daemon stopped {} times while analyzing it: set aside",
                            entry.path.string(), attempts));
    return nullptr;
  }
  // Without the mark a crash loop would go unseen: not analyzed until it can be written.
  if (auto marked = marks_->Mark(entry.name); !marked) {
    marks_->Unmark(entry.name);
    StoreFailed(Problem::kStore, marked.error().message);
    return nullptr;
  }
  ctx.at_ns = NowNs();
  return task;
}

void ServeDaemon::Analyze(Task& task, int worker) {
  const ingest::OpenRules rules{.no_follow = true, .beneath = options_.spool.string()};
  auto t0 = std::chrono::steady_clock::now();
  AnalysisOutcome outcome =
      AnalyzeIsolated(task.entry.files, options_.analyze, rules, task.context, options_.limits,
                      state_ / fmt::format("analysis.{}.result", worker), [this] { return stop_.load(); });
  task.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  counters_.analysis_seconds.fetch_add(task.seconds);
  task.outcome = std::move(outcome);
  {
    std::lock_guard lock(mu_);
    task.done = true;
    ++finished_;
  }
  cv_.notify_all();
}

void ServeDaemon::RecordFinished() {
  finished_seen_ = finished_.load();
  bool unmarked = false;
  for (auto& [job, tasks] : in_flight_) {
    for (auto& t : tasks) {
      if (!t->done || t->unmarked) continue;
      marks_->Unmark(t->entry.name);
      t->unmarked = unmarked = true;
    }
  }
  // Best effort: a mark left behind only counts one attempt too many after a crash, and a full
  // disk is reported by the next Mark.
  if (unmarked) (void)marks_->Write();
  // In the order taken, as far as each job's order allows: the finished task at the front of its
  // job's queue taken first goes first.
  while (true) {
    auto next = in_flight_.end();
    for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
      const Task& front = *it->second.front();
      if (front.done && (next == in_flight_.end() || front.turn < next->second.front()->turn)) next = it;
    }
    if (next == in_flight_.end()) return;
    Task& task = *next->second.front();
    bool recorded = true;
    try {
      recorded = Record(task);
    } catch (const std::exception& ex) {
      Fail(task.entry, fmt::format("{}: {}", task.entry.path.string(), ex.what()));
    }
    Progress();
    // A store that failed is tried again on this analysis before any other is recorded.
    if (!recorded) return;
    in_flight_names_.erase(task.entry.name);
    next->second.pop_front();
    if (next->second.empty()) in_flight_.erase(next);
  }
}

ServeDaemon::Seen ServeDaemon::SeenBefore(store::SqliteStore& store, const std::string& job_key,
                                          const SpoolEntry& entry) {
  auto seen = store.HasJob(job_key);
  if (!seen) {
    StoreFailed(Problem::kStore, seen.error().message);
    return Seen::kUnknown;
  }
  if (!*seen) return Seen::kNew;
  ++counters_.duplicates;
  Finish(entry);
  return Seen::kRecorded;
}

bool ServeDaemon::Record(Task& task) {
  const SpoolEntry& entry = task.entry;
  AnalysisOutcome& outcome = task.outcome;
  if (outcome.kind == AnalysisOutcome::Kind::kStopped) return true;  // SIGTERM: analyzed again next run
  // The analysis read the files again: one renamed over or written since they were hashed gave
  // rows of other bytes than the key's. The outcome is dropped; the entry is taken (and hashed)
  // again on the next scan.
  const ingest::OpenRules rules{.no_follow = true, .beneath = options_.spool.string()};
  if (auto now = store::IdentitiesOf(entry, rules); !now || *now != task.identities) {
    ++counters_.changed;
    Log("{}: changed after it was hashed: taken again", entry.name);
    return true;
  }
  switch (outcome.kind) {
    case AnalysisOutcome::Kind::kStopped:
      return true;
    case AnalysisOutcome::Kind::kNoResult:  // a full disk: the entry is not to blame, and is taken again
      StoreFailed(Problem::kStore, outcome.error);
      return true;
    case AnalysisOutcome::Kind::kFailed:
      Fail(entry, outcome.error);
      return true;
    case AnalysisOutcome::Kind::kOk:
      break;
  }
  const store::Batch& batch = outcome.output.batch;
  const auto& samples = outcome.output.samples;
  if (!samples.empty() && std::all_of(samples.begin(), samples.end(), [](const RankSample& s) {
        return s.kind == SampleKind::kDeviceTier;
      })) {
    // An agent's samples file between windows: the device gauges, nothing to store (nor counted:
    // their state is saved with the next analysis).
    metrics_.RecordJob(samples, task.context);
    Recorded(task);
    return true;
  }
  store::SqliteStore* store = Store();
  if (!store) return false;
  // Another serve sharing the store may have recorded the job, or be recording it, while this one
  // analyzed it: the key is claimed before either store is written, in one transaction with the
  // journal's check, so only the serve that claimed it writes its outbox, counts it and records it.
  auto claim = store->ClaimJob(task.context.job_key, owner_, NowNs());
  if (!claim) {
    StoreFailed(Problem::kStore, claim.error().message);
    return false;
  }
  if (*claim != store::SqliteStore::Claim::kOurs) {
    if (*claim == store::SqliteStore::Claim::kOthers)
      Log("{}: being recorded by another serve sharing the store: not recorded again", entry.name);
    ++counters_.duplicates;
    Finish(entry);
    return true;
  }
  if (outbox_) {
    // Journaled as done only once every store has it or its outbox file is durable.
    auto put = outbox_->Put(task.context.job_key, batch);
    if (!put) {
      StoreFailed(Problem::kOutbox, put.error().message);  // left in the spool: retried
      return false;
    }
    SetProblem(Problem::kOutbox, {});
  }
  // Counted in the metrics' state first, under the job key: a crash before the store's commit
  // redoes the analysis, which the state knows as counted; one after it finds the journal row.
  metrics_.RecordJob(samples, task.context, outcome.output.tops);  // false on the retry: counted
  if (auto saved = SaveMetrics(); !saved) {
    StoreFailed(Problem::kStore, saved.error().message);
    return false;
  }
  // On failure the entry is left in the spool: retried, the outbox file rewritten under the same key.
  auto recorded = store->Record(batch, entry.name);
  if (!recorded) {
    StoreFailed(Problem::kStore, recorded.error().message);
    return false;
  }
  SetProblem(Problem::kStore, {});
  Recorded(task);
  return true;
}

void ServeDaemon::Recorded(const Task& task) {
  ++counters_.analyzed;
  if (options_.verbose) {
    Log("recorded {} (job {}, analyzed in {:.2f} s)", task.entry.name, task.job, task.seconds);
  }
  Finish(task.entry);
}

void ServeDaemon::Finish(const SpoolEntry& entry) {
  if (options_.delete_done) {
    std::error_code ec;
    fs::remove_all(entry.path, ec);
    if (!entry.marker.empty()) fs::remove(entry.marker, ec);
    return;
  }
  auto moved = MoveEntry(entry, options_.spool, "done");
  Moved(moved ? Ok() : Status(std::unexpected(moved.error())));
}

}  // namespace plasmient::serve
