// TraceWriter: the one thread that drains a RecordSink, frames records into chunks, compresses
// and writes them. Application threads never wait on it.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "collect/agent/record_sink.h"
#include "wire/chunk_codec.h"

namespace plasmient::collect {

struct WriterOptions {
  int zstd_level = -3;                            // 0: store chunks uncompressed
  std::size_t chunk_raw_bytes = 1 << 20;          // write a chunk when this much is pending
  std::uint64_t flush_interval_ns = 200'000'000;  // ... or when the oldest record is this old
  std::uint64_t clock_sync_interval_ns = 5'000'000'000;
  // Size cap: chunks that would take the file past it are counted (DropSource::kSizeCap), not
  // written; the closing chunk is always written. 0: no cap.
  std::uint64_t max_bytes = 0;
  // One file per window (Rotate): each is written as ".name.part" and renamed when complete,
  // begins with every string, process and device record seen so far (so it reads on its own),
  // and counts drops from the last file that was written. A file that cannot be created or
  // written is dropped whole: its records are counted (DropSource::kSpool), the next file says so.
  bool windowed = false;
  // The (realtime, monotonic) pair of the header and the clock records: the process's clocks,
  // unless both are set (a generated trace, whose times must read the same on every run).
  std::int64_t fixed_realtime_ns = 0;
  std::int64_t fixed_monotonic_ns = 0;
  // Where chunks go (the seam for a failing disk in tests): write(2)'s contract.
  ssize_t (*write_fn)(int fd, const void* data, std::size_t size) = &::write;
};

class TraceWriter {
 public:
  TraceWriter(RecordSink& sink, const WriterOptions& options);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Creates the file, writes its header, starts the thread (unless `start_thread` is false:
  // then the caller drives Drain/WriteChunk itself). Empty string on success, else why; a
  // windowed writer carries on after a failure (counting drops) and says why once on stderr.
  std::string Open(const std::string& path, bool start_thread = true, std::uint32_t file_flags = 0);
  // Windowed: completes the current file (everything drained, drop counts, the closing chunk,
  // renamed to its name) and continues in `path`. On the writer thread (from the tick) or, with
  // no thread, the caller's.
  void Rotate(const std::string& path, std::uint32_t file_flags);
  // Called on the writer thread about every 100 ms (e.g. cuptiActivityFlushAll(0)).
  void SetTick(std::function<void()> tick) { tick_ = std::move(tick); }
  // The tick runs at the writer's next pass (within 2 ms) instead of at its time. Lock-free.
  void RequestTick() { tick_requested_.store(true, std::memory_order_release); }
  // Stops the thread, drains everything, writes drop counts and the closing chunk, closes.
  void Close();

  // One pass of drain-and-maybe-write; the thread loops on it. Public for tests and benches.
  // Returns the number of records moved into the pending chunk.
  std::size_t Drain();
  void WriteChunk(std::uint32_t flags);

  std::uint64_t records_written() const { return records_written_; }
  // A whole-run file whose write fails (disk full, quota, I/O error) says so once on stderr with
  // the path and the error, goes back to the end of its last complete chunk, counts the chunk's
  // records (DropSource::kSpool), keeps its string, process and device records for the next
  // chunk, and tries again with the next chunk: the file stays readable, with a counted gap.
  // Records framed but not in the file: a write failed (disk full, ...) or the size cap.
  std::uint64_t records_lost() const { return records_lost_; }
  bool write_failed() const { return write_failed_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t files_written() const { return files_written_; }
  std::uint64_t files_dropped() const { return files_dropped_; }
  const std::string& path() const { return path_; }

 private:
  void Run();
  std::string StartFile(const std::string& path, std::uint32_t file_flags);
  void FinishFile();
  void KeepSticky(const std::uint8_t* data, std::size_t bytes);
  void DropFailedChunk(std::uint32_t records);  // whole-run: see records_lost()
  void ClearPending();
  void AppendDropsAndClock(bool force_clock);
  std::pair<std::int64_t, std::int64_t> ClockPair(std::uint64_t monotonic_now) const;
  void DiscardPending();  // over the size cap: counted, not written
  bool WriteAll(const std::uint8_t* data, std::size_t size);

  RecordSink& sink_;
  WriterOptions options_;
  wire::ChunkEncoder encoder_;
  std::string path_;
  std::string part_path_;  // windowed: where path_ is written until it is complete
  bool file_open_ = false;
  int fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::function<void()> tick_;
  std::atomic<bool> tick_requested_{false};
  std::vector<std::uint8_t> pending_;
  std::vector<std::uint8_t> out_;
  std::uint32_t pending_records_ = 0;
  std::uint32_t pending_meta_ = 0;  // of which drop counts, clock pairs and what is resent
  // At the front of pending_: the string, process and device records of failed chunks, resent.
  std::uint32_t resent_records_ = 0;
  std::size_t resent_bytes_ = 0;
  std::uint64_t oldest_pending_ns_ = 0;
  std::uint64_t last_clock_sync_ns_ = 0;
  std::int64_t drops_reported_[static_cast<std::size_t>(wire::DropSource::kCount)] = {};
  std::int64_t drops_base_[static_cast<std::size_t>(wire::DropSource::kCount)] =
      {};                             // at the last file written
  std::vector<std::uint8_t> sticky_;  // windowed: string, process and device records seen so far
  std::uint32_t sticky_records_ = 0;
  std::uint64_t file_records_ = 0;  // records written into the current file
  std::uint64_t files_written_ = 0;
  std::uint64_t files_dropped_ = 0;
  bool said_spool_problem_ = false;
  std::uint64_t records_written_ = 0;
  std::uint64_t bytes_written_ = 0;
  off_t good_bytes_ = 0;  // the file up to its last complete chunk
  std::uint64_t records_lost_ = 0;
  bool write_failed_ = false;
  bool capped_ = false;    // this file reached the size cap
  bool said_cap_ = false;  // once per process, not per window file
};

}  // namespace plasmient::collect
