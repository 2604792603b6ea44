#include "cli/commands.h"

#include <cstdio>

#include "cli/diff_command.h"
#include "roofline/device_table.h"

namespace plasmient::cli {

std::vector<CommandHook> RegisterCommands(CLI::App& app) {
  std::vector<CommandHook> hooks;
  hooks.push_back(RegisterDiff(app));
  return hooks;
}

int RunPeaks() {
  std::string table = roofline::FormatPeakTable();
  std::fwrite(table.data(), 1, table.size(), stdout);
  return 0;
}

}  // namespace plasmient::cli
