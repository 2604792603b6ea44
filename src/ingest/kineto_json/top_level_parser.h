// Reads the top-level values of a Kineto trace other than traceEvents (deviceProperties,
// distributedInfo, baseTimeNanoseconds, ...), wherever they appeared in the file.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/time_units.h"
#include "ingest/kineto_json/event_framer.h"
#include "model/trace_builder.h"

namespace plasmient::ingest {

struct TopLevelFacts {
  std::optional<TimeNs> base_time_ns;  // baseTimeNanoseconds
  std::int64_t base_time_offset = 0;   // where its value sits in the uncompressed input
};

// Fills trace info and devices; values it cannot read are skipped (counted as malformed).
TopLevelFacts ApplyTopLevel(const std::vector<TopLevelValue>& values, model::TraceBuilder& builder);

}  // namespace plasmient::ingest
