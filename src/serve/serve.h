// `plasmient serve`: a per-node daemon that analyzes traces as they land in a spool folder
// (spool.h), records every analysis in the SQLite store (and ClickHouse through the outbox),
// and exposes Prometheus metrics over HTTP. One thread scans the spool, prepares the entries
// (checks, hashes, the journal) and records the results; the analyses run on a pool of
// --workers threads, each entry in a child process under limits (isolated_analysis.h), taken
// round robin by job (serve_pool.h) and recorded in each job's order. A bad trace is moved to
// failed/ and never stops it; an analysis is journaled in the same transaction as its rows,
// after its outbox file is durable, so kill -9 at any point and a restart neither lose nor
// double-count a trace. One daemon per spool (a lock).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "serve/http_server.h"
#include "serve/isolated_analysis.h"
#include "serve/metrics.h"
#include "serve/serve_pool.h"
#include "serve/spool.h"
#include "store/clickhouse_outbox.h"
#include "store/sqlite_store.h"
#include "verdict/analyze.h"

namespace plasmient::serve {

struct ServeOptions {
  std::filesystem::path spool;            // --spool
  std::string db_path;                    // --db; default <spool>/.plasmient/store.sqlite
  std::string listen_host = "127.0.0.1";  // --listen HOST:PORT
  int listen_port = 9464;                 // 0: any free port (tests)
  std::optional<store::ClickHouseOptions> clickhouse;
  std::int64_t outbox_max_bytes = 256ll << 20;  // --clickhouse-outbox-mb
  store::Labels labels;                         // --label, for every job (a marker's labels win)
  verdict::AnalyzeOptions analyze;
  int poll_ms = 200;
  std::size_t max_jobs_in_metrics = 32;
  // --counter-hold-s: a new series' counters show 0 this long before its figures, so that a
  // scrape sees the 0 and rate()/increase() count the first analysis (docs/fleet.md). The
  // command's default is 90 s; 0 here (tests and embedders: figures at once).
  double counter_hold_s = 0;
  int http_threads = 4;         // responses at once (HttpLimits::workers)
  std::string host;             // the host label; default gethostname()
  bool delete_done = false;     // delete analyzed traces instead of moving to done/
  LiveSampler* live = nullptr;  // live GPU sampler (the agent's NVML reader), or none
  SpoolRules spool_rules;       // --any-owner
  AnalysisLimits limits;        // --analysis-timeout-s, --analysis-memory-mb, --analysis-cpu-s
  int http_read_timeout_s = 5;  // a request's head, a response, and idle keep-alive
  // --cluster-every-s: the cluster layer over the store (ClickHouse when given, else SQLite) for
  // jobs whose per-rank rows changed, this often; 0: never. One serve of a fleet is enough.
  double cluster_every_s = 0;
  // --workers: analyses at once (each its own process under `limits`); 0: the core count.
  int workers = 0;
  // How long a second serve on the spool waits for the one holding its lock to let go before it
  // refuses: a predecessor told to stop (SIGTERM) still holds it while it exits.
  int lock_wait_ms = 5000;
  // --verbose: a line on stderr as each entry is taken and as it is recorded (the order taken is
  // the fair order of docs/fleet.md; with several workers the order recorded may differ).
  bool verbose = false;
};

// Parses "HOST:PORT" ("[::1]:9464" for IPv6).
Result<std::pair<std::string, int>> ParseListen(std::string_view text);

struct ServeCounters {
  std::atomic<std::int64_t> analyzed{0}, failed{0}, duplicates{0}, store_errors{0}, queue_depth{0},
      scrapes{0};
  // Entries removed from the spool while being taken (not failed), and entries whose files
  // changed between their hash and the end of their analysis (taken again, not recorded).
  std::atomic<std::int64_t> vanished{0}, changed{0};
  std::atomic<double> analysis_seconds{0};  // summed over the workers
};

class ServeDaemon {
 public:
  explicit ServeDaemon(ServeOptions options);
  ~ServeDaemon();

  // Opens the store, binds the listener and starts the threads; fails when the port is taken
  // or the store cannot be opened.
  Status Start();
  // Asks everything to stop: the analyses in progress are killed, their entries stay in the spool.
  void Stop();
  void Wait();

  int port() const { return port_; }
  std::vector<SelfMetric> SelfMetrics();  // the daemon's own figures, read at each scrape
  // Empty when healthy, else why not: the store or the outbox cannot be written, the spool
  // cannot be read, or no progress for longer than the analysis time limit.
  std::string Unhealthy() const;
  const ServeCounters& counters() const { return counters_; }

 private:
  // What keeps serve from recording, each reported on /healthz and in the metrics until it
  // clears; the entry it hit stays in the spool and is retried.
  enum class Problem { kStore, kOutbox, kSpool, kMove, kCount };
  void SetProblem(Problem p, std::string why);  // empty `why`: cleared; logged when it changes
  bool HasProblem(Problem p) const;
  // A store or outbox write failed: reported, and retried after a pause (the store reopened).
  void StoreFailed(Problem p, const std::string& why);
  // The metrics' state, written (fsynced, renamed) to SPOOL/.plasmient/metrics after each change
  // and before the store's commit: an analysis is counted once across a kill -9 (docs/fleet.md).
  Status SaveMetrics();
  // A move to done/ or failed/: a failure is reported (the entry stays in the spool) and paused on.
  void Moved(const Status& moved);
  void Pause();                 // kStoreRetry, or until stopped
  store::SqliteStore* Store();  // the store, reopened after a failure; null while it cannot be opened

  // One entry from its preparation until its analysis is recorded (or it failed).
  struct Task {
    SpoolEntry entry;
    std::string job;            // JobIdOf(entry): its turn among jobs, and its place in the job's order
    std::uint64_t turn = 0;     // when it was taken: the order of recording across jobs
    store::JobContext context;  // context.job_key: the entry's key in the journal
    std::vector<store::FileIdentity> identities;  // its files as they were hashed
    AnalysisOutcome outcome;                      // the worker's, once `done`
    double seconds = 0;                           // the analysis's wall time, once `done`
    std::atomic<bool> done{false};
    bool unmarked = false;  // no longer in the in-progress marks
  };

  void IngestLoop();
  void ClusterLoop();  // --cluster-every-s
  // Takes ready entries round robin by job while the pool has room; the rest stay in the spool.
  void Dispatch(const std::vector<SpoolEntry>& ready);
  // Counts an analysis recorded, says so under --verbose, and moves its entry to done/.
  void Recorded(const Task& task);
  // The plasmient_serve_job_waiting_entries gauge: the --max-jobs jobs with most entries waiting.
  void PublishWaiting(const std::map<std::string, std::int64_t>& waiting_by_job);
  // Checks, hashes and marks the entry; null when it is not to be analyzed now (failed, seen
  // before, or a store problem).
  std::shared_ptr<Task> Prepare(const SpoolEntry& entry);
  void Analyze(Task& task, int worker);  // on a worker thread
  // Records the finished analyses in the order they were taken; a job's never out of its order.
  void RecordFinished();
  // False when the store or the outbox failed: tried again later with the same result.
  bool Record(Task& task);
  // Whether the store journaled the key already (the entry is then a duplicate, moved on), or
  // cannot say (a store problem, reported; the entry stays for a retry).
  enum class Seen { kNew, kRecorded, kUnknown };
  Seen SeenBefore(store::SqliteStore& store, const std::string& job_key, const SpoolEntry& entry);
  void Fail(const SpoolEntry& entry, std::string_view error);
  void Finish(const SpoolEntry& entry);  // analyzed (or seen before): to done/, or deleted
  Status LockSpool(const std::filesystem::path& state);
  bool Throttled() const;  // a store, outbox or move problem: one entry at a time until it clears
  void Progress();

  ServeOptions options_;
  std::string db_path_;
  std::unique_ptr<store::SqliteStore> db_;
  // The scheduler's (the ingest thread's) state. A task stays in its job's queue until it is
  // recorded, so that a recording that failed is retried without analyzing the entry again.
  std::unique_ptr<WorkerPool> pool_;
  std::map<std::string, std::deque<std::shared_ptr<Task>>> in_flight_;  // by job, in the order taken
  std::set<std::string> in_flight_names_;
  std::map<std::string, std::uint64_t> last_turn_;  // by job: FairOrder's turns
  std::uint64_t turn_ = 0;
  std::unique_ptr<InProgressMarks> marks_;
  std::uint64_t finished_seen_ = 0;
  std::atomic<std::uint64_t> finished_{0};  // analyses ended, under mu_
  int workers_ = 1;
  // Ready entries not taken yet, by job (the max_jobs_in_metrics largest), for /metrics.
  mutable std::mutex waiting_mu_;
  std::vector<std::pair<std::string, double>> waiting_by_job_;
  std::unique_ptr<store::ClickHouseOutbox> outbox_;
  MetricsRegistry metrics_;
  ServeCounters counters_;
  std::unique_ptr<HttpServer> http_;
  int port_ = 0;
  std::thread ingest_thread_, cluster_thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> last_progress_ns_{0};  // steady clock
  mutable std::mutex problems_mu_;
  std::string problems_[static_cast<int>(Problem::kCount)];  // under problems_mu_
  std::filesystem::path state_;
  std::string owner_;  // "<host>:<spool>": this serve's name in the store's claims
  int lock_fd_ = -1;
};

}  // namespace plasmient::serve
