// What lets `plasmient serve` analyze several spool entries at once (docs/fleet.md, "Workers"):
// the order in which ready entries are taken (round robin by job), the pool of worker threads
// that each run one analysis process at a time, and the on-disk marks of the entries in flight
// (so that an entry the daemon dies on again and again is set aside, never retried forever).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"

namespace plasmient::serve {

// The order in which to take ready entries: round robin by job. `jobs` holds each entry's job,
// the entries oldest first; `last_turn` the turn at which each job was last given a worker (0 or
// absent: never). The job served least recently goes first (ties: the one with the oldest
// entry), one entry per turn, each job's entries oldest first. So a job with 500 entries waiting
// takes every other worker from a job with one, never all of them. Returns indices into `jobs`.
std::vector<std::size_t> FairOrder(const std::vector<std::string>& jobs,
                                   const std::map<std::string, std::uint64_t>& last_turn);

// `workers` threads that run submitted tasks, at most `max_queued` waiting for a thread; each
// thread runs `thread_setup` first. A task gets the index of the thread that runs it (0 ..
// workers-1), so that it can use files of its own.
class WorkerPool {
 public:
  using Task = std::function<void(int worker)>;
  WorkerPool(int workers, std::size_t max_queued, const std::function<void()>& thread_setup = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False when `max_queued` tasks already wait: the caller keeps the work and offers it later.
  bool TrySubmit(Task task);
  // Waits for the running tasks; the queued ones are dropped, never run.
  void Shutdown();

  int workers() const { return static_cast<int>(threads_.size()); }
  int busy() const;
  std::size_t queued() const;

 private:
  void Run(int worker, const std::function<void()>& thread_setup);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  std::size_t max_queued_;
  int busy_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// SPOOL/.plasmient/in-progress: one line "<attempts> <entry name>" per entry under analysis
// (names escaped: "\\" and "\n"), rewritten whole (a temporary file, fsynced, renamed) at each
// change. Lines found at start are entries the daemon died analyzing: their count is carried
// into the next attempt.
class InProgressMarks {
 public:
  explicit InProgressMarks(std::filesystem::path path) : path_(std::move(path)) {}
  // Reads what a previous run left (a missing file: nothing).
  void Load();
  // The attempts an earlier run made on `name` and died.
  int CrashedAttempts(const std::string& name) const;
  // Marks `name` as under analysis (its attempt count one more than the crashed ones) and writes
  // the file; an error names the file.
  Status Mark(const std::string& name);
  // Forgets `name` (its analysis ended, or it was set aside); `Write` makes it durable.
  void Unmark(const std::string& name);
  // Forgets the crashed entries not in `ready` (gone from the spool).
  void KeepCrashedOnly(const std::vector<std::string>& ready);
  Status Write() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::map<std::string, int> crashed_;  // from the previous run, not under analysis now
  std::map<std::string, int> marked_;   // under analysis now: its attempt number
};

// Lowers the calling thread's scheduling priority (nice +kAnalysisNice): the analyses and the
// spool scan yield the CPU to the HTTP threads that answer /metrics; a child process forked
// from the thread inherits it.
inline constexpr int kAnalysisNice = 10;
void LowerThreadPriority();

}  // namespace plasmient::serve
