// `plasmient serve`, `plasmient fleet` and `plasmient bill`: flags, signals and exit codes;
// the work is in src/serve, src/fleet and src/store.
#pragma once

#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace plasmient::cli {

void RegisterFleetCommands(CLI::App& app, std::vector<CommandHook>& hooks);

}  // namespace plasmient::cli
