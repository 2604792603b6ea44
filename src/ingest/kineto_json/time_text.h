// Exact decimal-text conversions for trace timestamps: Kineto writes microseconds as JSON
// numbers with up to 3 fractional digits (ns); float64 cannot hold 1.7e15 us to the ns.
#pragma once

#include <cstdint>
#include <string_view>

namespace plasmient::ingest {

// Parses a JSON number in microseconds ("12", "1712195495406752.8", "-3.5", "1.2e3") into
// nanoseconds, exactly for up to 3 fractional digits, rounded half away from zero beyond.
// Trailing whitespace is ignored. False for anything else or on int64 overflow.
bool ParseMicrosToNs(std::string_view text, std::int64_t* ns);

// Parses a JSON integer (optionally with a zero fraction, "12.0") into int64.
bool ParseInteger(std::string_view text, std::int64_t* value);

}  // namespace plasmient::ingest
