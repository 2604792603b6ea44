#include "ingest/kineto_json/event_batch.h"

#include <new>

namespace plasmient::ingest {

static_assert(kBatchPadding >= simdjson::SIMDJSON_PADDING, "batches must carry simdjson's padding");

void EventBatch::Seal() {
  if (json.empty()) json.push_back('[');
  json.push_back(']');
  json.reserve(json.size() + kBatchPadding);
}

bool EventBatch::Index() {
  if (!parser) parser = std::make_unique<simdjson::ondemand::parser>();
  const simdjson::error_code e = parser->iterate(json.data(), json.size(), json.capacity()).get(doc);
  if (e == simdjson::MEMALLOC) {
    // A parser whose buffers could not be allocated is not used again (simdjson may keep the
    // capacity it asked for beside a missing buffer); out of memory is the input's error.
    parser.reset();
    throw std::bad_alloc();
  }
  indexed = e == simdjson::SUCCESS;
  return indexed;
}

}  // namespace plasmient::ingest
