// `plasmient whatif TRACE|DIR [levers]`: the verdict now and under a change (docs/what-if.md).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace plasmient::cli {

CommandHook RegisterWhatIf(CLI::App& app);

}  // namespace plasmient::cli
