// The verdict as JSON, schema plasmient.verdict/1 (docs/json-schema.md).
#pragma once

#include <string>

#include "verdict/verdict.h"

namespace plasmient::exporting {

inline constexpr std::string_view kVerdictSchema = "plasmient.verdict/1";

std::string VerdictToJson(const verdict::JobVerdict& job);

}  // namespace plasmient::exporting
