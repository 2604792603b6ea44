// Small helpers over JSON text that simdjson does not offer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace plasmient::ingest {

// `raw` without whitespace outside strings; returns `raw` itself when it has none, else a view
// of *scratch.
std::string_view MinifyJson(std::string_view raw, std::string* scratch);

// A JSON number token as an integer: exact for integers (and "12.0"), truncated for other
// fractions, false when out of range or not a number.
bool ParseNumberAsInteger(std::string_view token, std::int64_t* out);

}  // namespace plasmient::ingest
