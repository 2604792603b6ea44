// The verdict as JSON, schema plasmient.verdict/1 (docs/json-schema.md).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "verdict/verdict.h"

namespace plasmient::exporting {

inline constexpr std::string_view kVerdictSchema = "plasmient.verdict/1";

// The verdict's JSON handed to `write` a piece at a time (about 1 MiB each; a 1,024-rank job
// writes tens of MB), in order: the pieces joined are VerdictToJson's text. The per-rank objects
// are formatted on `threads` threads (0: one per core); the text is the same for any count.
void WriteVerdictJson(const verdict::JobVerdict& job, const std::function<void(std::string_view)>& write,
                      std::size_t threads = 0);
std::string VerdictToJson(const verdict::JobVerdict& job);

}  // namespace plasmient::exporting
