// RecordSink: the bounded hand-off between record producers and the one writer thread.
//
// Two paths, both lock-free and allocation-free after construction:
//  * blocks — a high-volume producer (the CUPTI converter) fills a staging block with records
//    through a BlockProducer and publishes the whole block; the cost per record is a copy.
//  * the small-record ring — any thread (NCCL plugin, cuBLAS interposer, NVML sampler) pushes one
//    record of at most kSlotBytes at a time.
// When no block or slot is free the record is dropped and counted per DropSource.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "collect/agent/bounded_queue.h"
#include "wire/records.h"

namespace plasmient::collect {

struct Block {
  std::uint8_t* data = nullptr;
  std::uint32_t used = 0;
  std::uint32_t records = 0;
};

inline constexpr std::size_t kSlotBytes = 248;

struct Slot {
  std::uint32_t bytes = 0;
  std::uint32_t pad = 0;
  alignas(8) std::uint8_t data[kSlotBytes];
};

struct SinkOptions {
  std::size_t block_bytes = 256 << 10;
  std::size_t block_count = 64;  // 16 MiB of staging by default
  std::size_t ring_slots = 1 << 14;
};

class RecordSink {
 public:
  explicit RecordSink(const SinkOptions& options = {});
  RecordSink(const RecordSink&) = delete;
  RecordSink& operator=(const RecordSink&) = delete;

  std::size_t block_bytes() const { return options_.block_bytes; }

  // Block path.
  Block* AcquireBlock();            // nullptr when every block is in use
  void PublishBlock(Block* block);  // hands a filled block to the writer
  bool PopFullBlock(Block*& block);
  void ReleaseBlock(Block* block);  // the writer returns a drained block

  // Small-record path: copies `bytes` (<= kSlotBytes) of one record. False (and counted) if full.
  bool PushSmall(const void* record, std::size_t bytes);
  template <typename T>
  bool PushSmall(const T& record) {
    static_assert(sizeof(T) <= kSlotBytes);
    return PushSmall(&record, sizeof record);
  }
  // Pushes a StringRecord for `id` (text cut to fit one slot).
  bool PushString(std::uint32_t id, std::string_view text);
  bool PopSmall(Slot& slot) { return ring_.TryPop(slot); }

  // Ids for interned strings are unique across all producers of one sink; 0 is "".
  std::uint32_t NewStringId() { return next_string_id_.fetch_add(1, std::memory_order_relaxed); }

  void CountDrops(wire::DropSource source, std::int64_t n) {
    drops_[static_cast<std::size_t>(source)].fetch_add(n, std::memory_order_relaxed);
  }
  std::int64_t Drops(wire::DropSource source) const {
    return drops_[static_cast<std::size_t>(source)].load(std::memory_order_relaxed);
  }

 private:
  SinkOptions options_;
  std::unique_ptr<std::uint8_t[]> storage_;
  std::vector<Block> blocks_;
  BoundedQueue<Block*> free_;
  BoundedQueue<Block*> full_;
  BoundedQueue<Slot> ring_;
  std::atomic<std::uint32_t> next_string_id_{1};
  std::array<std::atomic<std::int64_t>, static_cast<std::size_t>(wire::DropSource::kCount)> drops_{};
};

// Fills blocks for one producer thread at a time (callers serialize access).
class BlockProducer {
 public:
  explicit BlockProducer(RecordSink& sink) : sink_(sink) {}
  ~BlockProducer() { Flush(); }
  BlockProducer(const BlockProducer&) = delete;
  BlockProducer& operator=(const BlockProducer&) = delete;

  template <typename T>
  bool Append(const T& record) {
    static_assert(sizeof(T) % 8 == 0);
    if (block_ == nullptr || block_->used + sizeof(T) > sink_.block_bytes()) {
      if (!Rotate()) return false;
    }
    std::memcpy(block_->data + block_->used, &record, sizeof(T));
    block_->used += sizeof(T);
    ++block_->records;
    return true;
  }
  // A StringRecord followed by the text (cut to wire::kMaxStringBytes), padded to 8 bytes.
  bool AppendString(std::uint32_t id, std::string_view text);
  // Publishes the partly filled block, if any.
  void Flush();

 private:
  bool Rotate();  // publishes the current block and takes a new one; counts a drop on failure
  RecordSink& sink_;
  Block* block_ = nullptr;
};

// Builds the bytes of a StringRecord + padded text into `out` (size set); returns the size.
std::size_t EncodeStringRecord(std::uint32_t id, std::string_view text, std::size_t max_bytes,
                               std::uint8_t* out);

}  // namespace plasmient::collect
