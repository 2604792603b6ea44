// How the diagnosis writes the numbers it quotes: the causes' evidence, the fixes and the warm-up
// sentence all read the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace plasmient::diagnose {

// "1.23 s" from a second up, else "12.3 ms": how the fixes' evidence writes a duration.
std::string SecondsText(double s);
// SecondsText, "85 µs" below a millisecond and "20 ns" below a microsecond: for durations that can
// be that short (a window too small to judge, an iteration).
std::string DurationText(double s);
// "1,360": counts in fix text are read at a glance.
std::string Thousands(std::int64_t n);
// "n things", or "1 thing" with `one` when given.
std::string Count(std::int64_t n, std::string_view many, std::string_view one = {});

}  // namespace plasmient::diagnose
