// A cheap look at an event's first bytes, on the framing thread: Kineto writes "ph" (and then
// "cat") first, so flows, instants and python_function events — a third or more of a typical
// trace, all skipped by the parser anyway — can be counted without a JSON parse.
#pragma once

#include <cstdint>
#include <string_view>

namespace plasmient::ingest {

enum class Prefiltered : std::uint8_t { kParse, kFlow, kInstant, kPythonFunction };

// kParse unless the event visibly starts with {"ph": "s"|"f"|"t"|"i"|"I" or with
// {"ph": "X", "cat": "python_function" and a name other than "nn.Module: …" (module ranges are
// parsed). Anything unusual is left to the parser.
Prefiltered PrefilterEvent(std::string_view event);

struct PrefilterCounts {
  std::int64_t flows = 0, instants = 0, python_functions = 0;
};

}  // namespace plasmient::ingest
