// A batch of framed trace events: their JSON text joined into one array, padded so the
// parser can read it in place, plus a bounded queue that hands batches between threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

namespace plasmient::ingest {

// Zero bytes kept readable after the text (simdjson needs SIMDJSON_PADDING = 64).
inline constexpr std::size_t kBatchPadding = 64;

struct EventBatch {
  std::string json;                  // "[" event "," event ... "]"
  std::vector<std::uint32_t> begin;  // each event's [begin, end) within json
  std::vector<std::uint32_t> end;
  std::vector<std::int64_t> offset;  // each event's byte offset in the uncompressed input
  // simdjson's stage 1 (the structural index), run by Seal() on the framing thread so the
  // parsing thread only walks the document. `indexed` is false when stage 1 failed.
  std::unique_ptr<simdjson::ondemand::parser> parser;
  simdjson::ondemand::document doc;
  bool indexed = false;

  std::size_t events() const { return begin.size(); }
  std::string_view Event(std::size_t i) const {
    return std::string_view(json).substr(begin[i], end[i] - begin[i]);
  }
  void Clear() {
    json.clear();
    begin.clear();
    end.clear();
    offset.clear();
    doc = simdjson::ondemand::document{};
    indexed = false;
  }
  // Appends one event's text, which may arrive in two parts (carried over a chunk boundary).
  void Add(std::string_view head, std::string_view tail, std::int64_t input_offset) {
    offset.push_back(input_offset);
    json.push_back(json.empty() ? '[' : ',');
    begin.push_back(static_cast<std::uint32_t>(json.size()));
    json.append(head);
    json.append(tail);
    end.push_back(static_cast<std::uint32_t>(json.size()));
  }
  // Closes the array, makes sure the padding is there and indexes the text.
  void Seal();
};

// A bounded single-producer/single-consumer queue of batches, with a free list so batch
// buffers are reused instead of reallocated.
class BatchQueue {
 public:
  explicit BatchQueue(std::size_t capacity) : capacity_(capacity) {}

  // Producer: blocks while the queue is full. Returns false when the consumer has stopped.
  bool Push(EventBatch&& batch);
  // Producer: no more batches.
  void Close();
  // Consumer: blocks for the next batch; false at the end.
  bool Pop(EventBatch* batch);
  // Consumer: gives a spent batch back for reuse; Producer: takes one (or a fresh one).
  void Recycle(EventBatch&& batch);
  EventBatch TakeFree();
  // Consumer: stop; unblocks the producer.
  void Cancel();

 private:
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<EventBatch> ready_;
  std::vector<EventBatch> free_;
  std::size_t capacity_;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace plasmient::ingest
