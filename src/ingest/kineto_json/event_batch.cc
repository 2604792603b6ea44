#include "ingest/kineto_json/event_batch.h"

#include "ingest/kineto_json/event_batch_index.h"
#include "ingest/kineto_json/simdjson_memory.h"

namespace plasmient::ingest {

EventBatch::EventBatch() = default;
EventBatch::~EventBatch() = default;
EventBatch::EventBatch(EventBatch&&) noexcept = default;
EventBatch& EventBatch::operator=(EventBatch&&) noexcept = default;

void EventBatch::Clear() {
  json.clear();
  begin.clear();
  end.clear();
  offset.clear();
  if (index) index->doc = simdjson::ondemand::document{};
  indexed = false;
}

static_assert(kBatchPadding >= simdjson::SIMDJSON_PADDING, "batches must carry simdjson's padding");

void EventBatch::Seal() {
  if (json.empty()) json.push_back('[');
  json.push_back(']');
  json.reserve(json.size() + kBatchPadding);
}

bool EventBatch::Index() {
  if (!index) index = std::make_unique<BatchIndex>();
  simdjson::ondemand::parser& parser = index->parser;
  // Batches vary by up to an event around the target size, and simdjson sizes its buffers to
  // exactly the text: each slot's parser would reallocate (and fault in anew) several times
  // over a file. An eighth more lets the sizes settle; if it cannot be had, iterate() asks for
  // exactly the text and reports what fails.
  if (parser.capacity() < json.size()) {
    [[maybe_unused]] const simdjson::error_code headroom = parser.allocate(json.size() + json.size() / 8);
  }
  const simdjson::error_code e = IterateOrThrow(
      parser, simdjson::padded_string_view(json.data(), json.size(), json.capacity()), index->doc);
  indexed = e == simdjson::SUCCESS;
  return indexed;
}

}  // namespace plasmient::ingest
