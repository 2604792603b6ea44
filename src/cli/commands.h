// Subcommands other than analyze register here: each gets its CLI11 subcommand and a runner.
#pragma once

#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace plasmient::cli {

struct CommandHook {
  CLI::App* command;
  std::function<int()> run;
};

std::vector<CommandHook> RegisterCommands(CLI::App& app);

int RunPeaks();

}  // namespace plasmient::cli
