// `plasmient diff BEFORE AFTER`: each side analyzed like `analyze`, then what changed.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace plasmient::cli {

CommandHook RegisterDiff(CLI::App& app);

}  // namespace plasmient::cli
