// A batch of framed trace events: their JSON text joined into one array, padded so the
// parser can read it in place. simdjson stays behind BatchIndex (event_batch_index.h): the framer
// and the pipeline that only move batches about do not compile its header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace plasmient::ingest {

// Zero bytes kept readable after the text (simdjson needs SIMDJSON_PADDING = 64).
inline constexpr std::size_t kBatchPadding = 64;

// simdjson's parser and the document it indexed, for one batch (event_batch_index.h).
struct BatchIndex;

struct EventBatch {
  std::string json;                  // "[" event "," event ... "]"
  std::vector<std::uint32_t> begin;  // each event's [begin, end) within json
  std::vector<std::uint32_t> end;
  std::vector<std::int64_t> offset;  // each event's byte offset in the uncompressed input
  // simdjson's stage 1 (the structural index), run by Index() on the thread that parses the
  // batch. The parser is the batch's own: strings it unescapes live until the batch is reused.
  std::unique_ptr<BatchIndex> index;
  bool indexed = false;  // Index() ran and stage 1 succeeded

  EventBatch();
  ~EventBatch();
  EventBatch(EventBatch&&) noexcept;
  EventBatch& operator=(EventBatch&&) noexcept;

  std::size_t events() const { return begin.size(); }
  std::string_view Event(std::size_t i) const {
    return std::string_view(json).substr(begin[i], end[i] - begin[i]);
  }
  // Empties the batch; its parser (and the buffers it allocated) stays for the next text.
  void Clear();
  // Appends one event's text, which may arrive in two parts (carried over a chunk boundary).
  void Add(std::string_view head, std::string_view tail, std::int64_t input_offset) {
    offset.push_back(input_offset);
    json.push_back(json.empty() ? '[' : ',');
    begin.push_back(static_cast<std::uint32_t>(json.size()));
    json.append(head);
    json.append(tail);
    end.push_back(static_cast<std::uint32_t>(json.size()));
  }
  // Closes the array and makes sure the padding is there (on the framing thread).
  void Seal();
  // Runs stage 1 over the sealed text; false when it failed (the parser then goes event by event).
  bool Index();
};

}  // namespace plasmient::ingest
