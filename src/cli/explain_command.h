// `plasmient explain TRACE|DIR --at T [--rank R] [--json]`: one column of the vertical trace
// (docs/explain.md).
#pragma once

#include <string_view>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "cli/commands.h"
#include "verdict/column.h"

namespace plasmient::cli {

// "6.2ms", "6200us", "6200000ns", "0.0062s", "step:5+1.5ms", "step:5", "worst".
Result<verdict::InstantSpec> ParseInstant(std::string_view text);

CommandHook RegisterExplain(CLI::App& app);

}  // namespace plasmient::cli
