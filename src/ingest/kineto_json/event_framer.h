// EventFramer: finds each complete event object inside the top-level "traceEvents" array of a
// Chrome/Kineto trace, across arbitrary chunk boundaries (string and escape aware), and keeps the
// text of the other top-level values the parser needs. It checks structure only; the parser
// checks each event's content.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"
#include "ingest/kineto_json/event_batch.h"
#include "ingest/kineto_json/event_prefilter.h"
#include "ingest/kineto_json/no_trace_events.h"

namespace plasmient::ingest {

struct TopLevelValue {
  std::string key;
  std::string text;     // the value's JSON text
  std::int64_t offset;  // byte offset of the value in the uncompressed input
};

// How nested values are scanned: 64 bytes a step with the widest vector unit the processor has
// (AVX2, else SSE2), with SSE2 alone, or one token at a time. Every scan frames the same events
// and fails at the same byte; tests force each to check so (event_framer_test.cc).
enum class FramerScan : std::uint8_t { kWidest, kSse2, kTokens };

class EventFramer {
 public:
  // Receives a full batch; should leave `batch` empty or swap in a spare one. Returns false to
  // stop (the consumer has gone away).
  using BatchSink = std::function<bool(EventBatch& batch)>;

  // An event (or kept top-level value) longer than `max_event_bytes` fails the input: an
  // unfinished one is buffered across chunks, and that buffer must stay bounded.
  EventFramer(std::string name, std::size_t batch_bytes, BatchSink sink,
              std::size_t max_event_bytes = kMaxEventBytes);

  // Scans with `scan` from the next chunk on (the default is kWidest). Where the build has no
  // SSE2 (not x86-64), kSse2 scans one token at a time.
  void ForceScan(FramerScan scan) { scan_ = scan; }

  // Frames the next chunk of the uncompressed input.
  Status Feed(std::string_view chunk);
  // The input has ended: fails unless the document was complete; flushes the last batch.
  Status Finish();

  // Top-level values other than traceEvents that the parser reads (deviceProperties, ...).
  const std::vector<TopLevelValue>& top_level() const { return top_level_; }
  std::int64_t events() const { return events_; }
  // Entries of traceEvents that are not objects (counted as malformed by the caller).
  std::int64_t non_object_entries() const { return non_object_entries_; }
  std::int64_t bytes() const { return base_; }
  // Events counted here and never handed to the parser (see event_prefilter.h).
  const PrefilterCounts& prefiltered() const { return prefiltered_; }

  // Nesting state of a value being scanned (public for the scanner helpers).
  struct Nest {
    std::int32_t depth = 0;
    bool in_string = false;
    bool escape = false;
  };

 private:
  enum class State {
    kStart,
    kTopKey,
    kKeyString,
    kColon,
    kTopValue,
    kEventsArray,
    kEvent,
    kValue,
    kScalar,
    kDone
  };

  Status Step(const char* p, std::size_t n, std::size_t& i);
  void StartValue(const char* p, std::size_t i, bool capture, State after);
  Status EmitEvent(std::string_view tail);
  Status FlushBatch();
  std::unexpected<Error> Problem(std::string_view what, std::size_t i) const;

  std::string name_;
  std::size_t batch_bytes_;
  std::size_t max_event_bytes_;
  BatchSink sink_;
  EventBatch batch_;

  State state_ = State::kStart;
  std::int64_t base_ = 0;          // offset of the current chunk's first byte
  std::size_t start_ = 0;          // where the current event/value began in this chunk
  std::int64_t event_offset_ = 0;  // where the current event began in the input
  Nest nest_;
  FramerScan scan_ = FramerScan::kWidest;
  std::string carry_;  // the beginning of an event/value that began in an earlier chunk
  std::string key_;    // the current top-level key (raw)
  bool key_escape_ = false;
  bool capture_ = false;  // keep the current top-level value's text
  State after_value_ = State::kTopKey;
  std::int64_t value_offset_ = 0;
  bool root_array_ = false;  // the document is a bare array of events
  bool saw_events_ = false;
  std::int64_t events_ = 0;
  std::int64_t non_object_entries_ = 0;
  std::vector<TopLevelValue> top_level_;
  PrefilterCounts prefiltered_;
};

}  // namespace plasmient::ingest
