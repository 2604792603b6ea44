#include "ingest/kineto_json/event_batch.h"

#include "ingest/kineto_json/simdjson_memory.h"

namespace plasmient::ingest {

static_assert(kBatchPadding >= simdjson::SIMDJSON_PADDING, "batches must carry simdjson's padding");

void EventBatch::Seal() {
  if (json.empty()) json.push_back('[');
  json.push_back(']');
  json.reserve(json.size() + kBatchPadding);
}

bool EventBatch::Index() {
  if (!parser) parser = std::make_unique<simdjson::ondemand::parser>();
  const simdjson::error_code e =
      IterateOrThrow(*parser, simdjson::padded_string_view(json.data(), json.size(), json.capacity()), doc);
  indexed = e == simdjson::SUCCESS;
  return indexed;
}

}  // namespace plasmient::ingest
