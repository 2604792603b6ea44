// The error of a JSON document that holds no trace at all (a config.json beside the traces), as
// opposed to a damaged trace: the framer says it, ingest::IsNotATrace recognizes it. Its own header,
// so that recognizing it does not bring in the framer's batches (and simdjson with them).
#pragma once

#include <string_view>

namespace plasmient::ingest {

inline constexpr std::string_view kNoTraceEvents = "no traceEvents array in the top-level object";

}  // namespace plasmient::ingest
