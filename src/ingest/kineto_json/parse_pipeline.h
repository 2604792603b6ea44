// The batches in flight between the framing thread, the parsing threads and the thread that
// applies rows to the builder: pushed in input order, parsed by whichever worker is free, handed
// to the applier in input order once parsed. Bounded: the framer waits while `capacity` batches
// are in flight, so memory does not grow with the input; spent slots are reused.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "ingest/kineto_json/event_batch.h"
#include "ingest/kineto_json/event_parser.h"

namespace plasmient::ingest {

struct ParseSlot {
  EventBatch batch;
  BatchRows rows;  // what the batch says, filled by a parsing thread
};

class ParsePipeline {
 public:
  explicit ParsePipeline(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Framer: an empty slot, a recycled one where one is free. No more than max_slots() are ever
  // made (the framer waits for one to come back): each batch parsed keeps its simdjson parser,
  // megabytes of buffers on fresh pages, so slots are made once and reused to the end.
  std::unique_ptr<ParseSlot> TakeFree();
  // In flight, one being applied and one being filled.
  std::size_t max_slots() const { return capacity_ + 2; }
  // Framer: queues a filled slot; waits while `capacity` are in flight. False once cancelled.
  bool Push(std::unique_ptr<ParseSlot> slot);
  // Framer: no more slots.
  void Close();

  // Parser: the oldest slot no parser has taken; null at the end or once cancelled.
  ParseSlot* TakeWork();
  // Parser: `slot` (from TakeWork) is parsed.
  void Parsed(const ParseSlot* slot);

  // Applier: the oldest slot once it is parsed; null at the end or once cancelled.
  std::unique_ptr<ParseSlot> PopParsed();
  // Applier: gives a spent slot back for reuse.
  void Recycle(std::unique_ptr<ParseSlot> slot);

  // Anyone: stop; every wait returns.
  void Cancel();

 private:
  struct InFlight {
    std::unique_ptr<ParseSlot> slot;
    bool parsed = false;
  };

  std::mutex mutex_;
  std::condition_variable changed_;  // a few threads at most: one condition, notify_all
  std::deque<InFlight> in_flight_;   // in input order
  std::size_t taken_ = 0;            // slots at the front of in_flight_ already handed to parsers
  std::vector<std::unique_ptr<ParseSlot>> free_;
  std::size_t capacity_;
  std::size_t made_ = 0;  // slots handed out by TakeFree, all told
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace plasmient::ingest
