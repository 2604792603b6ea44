// EventParser: gives framed Kineto events their meaning (simdjson On-Demand over a batch)
// and hands rows to model::TraceBuilder. Bad events are counted in DataQuality and skipped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ingest/kineto_json/event_batch.h"
#include "model/trace_builder.h"

namespace plasmient::ingest {

struct EventFields;

class EventParser {
 public:
  explicit EventParser(model::TraceBuilder& builder);
  ~EventParser();
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // Walks a sealed (indexed) batch; events it cannot get through are parsed one by one.
  void ParseBatch(EventBatch& batch);
  // After the last batch: rows that depend on the whole trace (nccl:* collectives).
  void Finish();

  struct Impl;  // simdjson state and scratch buffers

  // Smallest event timestamp seen, in ns on the file's clock (kNoTime when none).
  TimeNs min_ts_ns() const { return min_ts_ns_; }

 private:
  // Counts one occurrence at the event being parsed (its byte offset, for the first one).
  void Count(model::Dq id) { builder_.quality().AddAt(id, offset_); }
  void Emit(const EventFields& ev);
  void EmitComplete(const EventFields& ev);

  model::TraceBuilder& builder_;
  std::unique_ptr<Impl> impl_;
  TimeNs min_ts_ns_ = kNoTime;
  std::int64_t offset_ = -1;                // the current event's byte offset in the input
  bool collectives_from_args_ = false;      // some cpu op carried "Collective name"
  std::vector<std::int32_t> nccl_op_rows_;  // cpu ops named nccl:*
};

}  // namespace plasmient::ingest
