// --steps A:B, a Python-style slice over a trace's ProfilerSteps.
#pragma once

#include <string_view>

#include "base/result.h"
#include "verdict/analyze.h"

namespace plasmient::cli {

// ":-1", "2:", "1:-1"; an error naming --steps for anything else.
Result<verdict::StepSlice> ParseStepSlice(std::string_view text);

}  // namespace plasmient::cli
