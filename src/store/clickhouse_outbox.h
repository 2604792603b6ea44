// A bounded on-disk outbox in front of ClickHouse: every analysis is written here first (one
// file per job key, "<key>.tsv", atomically; a retry rewrites it), a sender thread inserts them in
// batches, deletes what landed and marks its key sent ("<key>.sent"), after which a Put of that
// key writes nothing: a job reaches ClickHouse's rollups once, whatever happens to the SQLite
// write that follows the Put. While ClickHouse is unreachable files wait and are retried; nothing is lost up
// to `max_bytes`, and what would overflow it is dropped and counted.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "base/result.h"
#include "store/clickhouse_store.h"

namespace plasmient::store {

struct OutboxCounters {
  std::atomic<std::int64_t> pending_files{0}, pending_bytes{0};
  std::atomic<std::int64_t> sent_jobs{0}, sent_rows{0}, overflow_jobs{0}, send_failures{0};
  std::atomic<std::int64_t> already_sent{0};  // Puts of a key whose rows had reached ClickHouse
  std::atomic<bool> reachable{false};
};

class ClickHouseOutbox {
 public:
  ClickHouseOutbox(std::filesystem::path dir, std::int64_t max_bytes, std::unique_ptr<ClickHouseStore> store);
  ~ClickHouseOutbox();

  Status Open();  // creates the folder, counts what a previous run left
  // Queues one job's rows (nothing when the key was sent already); false when the outbox is full
  // (the job is counted as overflow).
  Result<bool> Put(const std::string& job_key, const Batch& batch);
  void Start();
  void Stop();  // the sender finishes its current batch; unsent files stay for the next run
  // Sends everything pending now (used by tests and at shutdown when reachable).
  Status Flush();

  const OutboxCounters& counters() const { return counters_; }

  static std::string Serialize(const Batch& batch);
  static Result<Batch> Deserialize(std::string_view text, const std::string& file);

 private:
  void Run();
  Status SendSome(std::size_t max_files);

  std::filesystem::path dir_;
  std::int64_t max_bytes_;
  std::unique_ptr<ClickHouseStore> store_;
  bool schema_ready_ = false;
  // Files that may have reached ClickHouse: a send of them failed, or a previous run left them
  // (it may have died mid-send). Only these are checked for rows already there (Sent::kMaybe).
  std::set<std::string> maybe_sent_;
  OutboxCounters counters_;
  std::mutex mu_;
  std::mutex send_mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace plasmient::store
