// What EventBatch::Index() makes: simdjson's parser, kept with the batch so that its buffers are
// reused, and the document it indexed (read by the parser, event_parser.cc).
#pragma once

#include <simdjson.h>

#include "ingest/kineto_json/event_batch.h"

namespace plasmient::ingest {

struct BatchIndex {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;  // the batch's array, once Index() returned true
};

}  // namespace plasmient::ingest
