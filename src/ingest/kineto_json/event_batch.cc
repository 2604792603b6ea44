#include "ingest/kineto_json/event_batch.h"

namespace plasmient::ingest {

static_assert(kBatchPadding >= simdjson::SIMDJSON_PADDING, "batches must carry simdjson's padding");

void EventBatch::Seal() {
  if (json.empty()) json.push_back('[');
  json.push_back(']');
  json.reserve(json.size() + kBatchPadding);
}

bool EventBatch::Index() {
  if (!parser) parser = std::make_unique<simdjson::ondemand::parser>();
  indexed = parser->iterate(json.data(), json.size(), json.capacity()).get(doc) == simdjson::SUCCESS;
  return indexed;
}

}  // namespace plasmient::ingest
