// EventParser: gives framed Kineto events their meaning (simdjson On-Demand over a batch) as
// rows in a BatchRows; RowApplier hands those to model::TraceBuilder in input order. Parsing
// needs nothing from earlier batches, so batches can be parsed on several threads at once; the
// applier alone writes the model. Bad events are counted in DataQuality and skipped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/kineto_json/event_batch.h"
#include "model/trace_builder.h"

namespace plasmient::ingest {

struct EventFields;

// What one batch's events say, in input order. Text views point into the batch (its JSON or its
// simdjson parser's string buffer) or into `owned`, so the batch must outlive the rows' use.
struct BatchRows {
  enum class Kind : std::uint8_t { kGpu, kApi, kCpuOp, kNcclCpuOp, kCollective, kSample, kOverhead };
  // A collective's `gpu` or `cpu_op` set to kJustAdded belongs to the row added just before it.
  static constexpr std::int32_t kJustAdded = -2;

  std::vector<std::pair<Kind, std::uint32_t>> order;  // each row's kind and index in its vector
  std::vector<model::GpuRow> gpu;
  std::vector<model::ApiRow> api;
  std::vector<model::CpuOpRow> cpu;
  std::vector<model::CollectiveRow> collectives;
  std::vector<model::SampleRow> samples;
  std::vector<model::OverheadRow> overhead;
  std::vector<std::pair<model::Dq, std::int64_t>> quality;  // offset -1: counted without one
  TimeNs min_ts_ns = kNoTime;  // smallest event timestamp, in ns on the file's clock

  void Clear();
  // A copy of `text` that lives as long as these rows (for text in buffers reused per event).
  std::string_view Own(std::string_view text);

 private:
  // Blocks of at least kOwnedBlockBytes, reserved up front so appending never moves them.
  static constexpr std::size_t kOwnedBlockBytes = 64u << 10;
  std::vector<std::string> owned_;
  std::size_t owned_used_ = 0;  // blocks of owned_ in use
};

class EventParser {
 public:
  EventParser();
  ~EventParser();
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // Walks a sealed batch (indexing it first if it is not yet); events it cannot get through are
  // parsed one by one. `out` is cleared first.
  void ParseBatch(EventBatch& batch, BatchRows& out);

  struct Impl;  // simdjson state and scratch buffers

 private:
  // Counts one occurrence at the event being parsed (its byte offset, for the first one).
  void Count(model::Dq id) { out_->quality.emplace_back(id, offset_); }
  void CountUnplaced(model::Dq id) { out_->quality.emplace_back(id, -1); }
  void Emit(const EventFields& ev);
  void EmitComplete(const EventFields& ev);
  void NoteTime(TimeNs ts_ns);

  std::unique_ptr<Impl> impl_;
  BatchRows* out_ = nullptr;
  std::int64_t offset_ = -1;  // the current event's byte offset in the input
};

// Hands parsed batches to the builder, in input order, then what depends on the whole trace.
class RowApplier {
 public:
  explicit RowApplier(model::TraceBuilder& builder) : builder_(builder) {}
  void Apply(const BatchRows& rows);
  // After the last batch: rows that depend on the whole trace (nccl:* collectives).
  void Finish();
  // Smallest event timestamp seen, in ns on the file's clock (kNoTime when none).
  TimeNs min_ts_ns() const { return min_ts_ns_; }

 private:
  model::TraceBuilder& builder_;
  TimeNs min_ts_ns_ = kNoTime;
  bool collectives_from_args_ = false;      // some cpu op carried "Collective name"
  std::vector<std::int32_t> nccl_op_rows_;  // cpu ops named nccl:*
};

}  // namespace plasmient::ingest
