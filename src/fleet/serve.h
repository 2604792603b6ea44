// `plasmient serve`: a per-node daemon that analyzes traces as they land in a spool folder
// (spool.h), records every analysis in the SQLite store (and ClickHouse through the outbox),
// and exposes Prometheus metrics over HTTP. A bad trace is moved to failed/ and never stops
// it; an analysis is journaled in the same transaction as its rows, so kill -9 at any point
// and a restart neither lose nor double-count a trace.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "base/result.h"
#include "fleet/clickhouse_outbox.h"
#include "fleet/metrics.h"
#include "fleet/spool.h"
#include "fleet/sqlite_store.h"
#include "verdict/analyze.h"

namespace httplib {
class Server;
}

namespace plasmient::fleet {

struct ServeOptions {
  std::filesystem::path spool;            // --spool
  std::string db_path;                    // --db; default <spool>/.plasmient/store.sqlite
  std::string listen_host = "127.0.0.1";  // --listen HOST:PORT
  int listen_port = 9464;                 // 0: any free port (tests)
  std::optional<ClickHouseOptions> clickhouse;
  std::int64_t outbox_max_bytes = 256ll << 20;  // --clickhouse-outbox-mb
  Labels labels;                                // --label, for every job (a marker's labels win)
  verdict::AnalyzeOptions analyze;
  int poll_ms = 200;
  std::size_t max_jobs_in_metrics = 32;
  int http_threads = 128;
  std::string host;             // the host label; default gethostname()
  bool delete_done = false;     // delete analyzed traces instead of moving to done/
  LiveSampler* live = nullptr;  // live GPU sampler (the agent's NVML reader), or none
};

// Parses "HOST:PORT" ("[::1]:9464" for IPv6).
Result<std::pair<std::string, int>> ParseListen(std::string_view text);

struct ServeCounters {
  std::atomic<std::int64_t> analyzed{0}, failed{0}, duplicates{0}, store_errors{0}, queue_depth{0},
      scrapes{0};
  std::atomic<double> analysis_seconds{0};
};

class ServeDaemon {
 public:
  explicit ServeDaemon(ServeOptions options);
  ~ServeDaemon();

  // Opens the store, binds the listener and starts the threads; fails when the port is taken
  // or the store cannot be opened.
  Status Start();
  // Asks everything to stop: the analysis in progress finishes and is recorded.
  void Stop();
  void Wait();

  int port() const { return port_; }
  std::string RenderMetrics();
  const ServeCounters& counters() const { return counters_; }

 private:
  void IngestLoop();
  void ProcessEntry(const SpoolEntry& entry);
  void Fail(const SpoolEntry& entry, std::string_view error);

  ServeOptions options_;
  std::unique_ptr<SqliteStore> db_;
  std::unique_ptr<ClickHouseOutbox> outbox_;
  MetricsRegistry metrics_;
  ServeCounters counters_;
  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
  std::thread http_thread_, ingest_thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
};

}  // namespace plasmient::fleet
