// InflateAheadReader: gzip inflated on a thread of its own, a few chunks ahead of the consumer,
// so inflating overlaps the framing of the chunk before (without it, one thread does both and is
// the critical path of a gzip ingest).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "base/result.h"
#include "ingest/kineto_json/chunk_reader.h"

namespace plasmient::ingest {

// Chunks inflated ahead of the consumer, plus the one it holds: enough to ride out a chunk that
// is slow to frame, few enough that the ring stays small beside the trace.
inline constexpr std::size_t kInflateAheadSlots = 4;

// Hands out the chunks `gzip` gives, byte for byte and failing where it would, with the same
// messages; the view stays valid until the next call. At most `slots` chunks are held: the
// inflating thread waits for the consumer to take one before it fills another. Destroying the
// reader, read to the end or not, stops that thread and joins it. Where a thread cannot start,
// the consumer's thread inflates.
class InflateAheadReader final : public ChunkReader {
 public:
  explicit InflateAheadReader(std::unique_ptr<GzipChunkReader> gzip, std::size_t slots = kInflateAheadSlots);
  ~InflateAheadReader() override;
  InflateAheadReader(const InflateAheadReader&) = delete;
  InflateAheadReader& operator=(const InflateAheadReader&) = delete;

  Result<std::string_view> Next() override;
  // As of the chunk handed out last, as the serial reader would say at that point.
  std::int64_t raw_bytes_done() const override { return raw_done_; }
  std::int64_t raw_bytes_total() const override { return raw_total_; }
  // False when the inflating thread could not start (everything then runs in Next()).
  bool inflates_ahead() const { return thread_.joinable(); }

 private:
  struct Slot {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::int64_t raw_done = 0;
    std::optional<Error> error;
    std::exception_ptr exception;  // e.g. bad_alloc: rethrown on the consumer's thread
  };

  void Inflate();  // the inflating thread
  Result<std::string_view> Hand(Slot& slot);

  std::unique_ptr<GzipChunkReader> gzip_;
  std::int64_t raw_total_;
  std::int64_t raw_done_ = 0;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable filled_cv_;  // a slot was filled
  std::condition_variable freed_cv_;   // a slot was handed back, or stop_
  // Counts of slots, slot i % slots_.size() being the i-th chunk; guarded by mutex_.
  std::size_t filled_ = 0;  // filled by the inflating thread
  std::size_t freed_ = 0;   // handed back by the consumer
  bool stop_ = false;
  // The consumer's side only.
  std::size_t taken_ = 0;  // handed out
  bool finished_ = false;  // the end or a failure was handed out: every later call repeats it
  Slot* last_ = nullptr;   // the slot that ended it
  std::thread thread_;
};

}  // namespace plasmient::ingest
