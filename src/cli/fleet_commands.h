// `plasmient serve`, `plasmient fleet` and `plasmient bill`: flags, signals and exit codes;
// the work is in src/fleet.
#pragma once

#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "verdict/verdict.h"

namespace plasmient::cli {

struct RecordFlags;
// --db, --clickhouse, --clickhouse-db, --job, --label, --host on analyze.
void AddRecordOptions(CLI::App& app, RecordFlags& flags);
// Records the verdict when --db or --clickhouse was given; returns an exit code (0: fine).
int RecordIfAsked(const RecordFlags& flags, const verdict::JobVerdict& job,
                  const std::vector<std::string>& given, const std::vector<std::string>& files);

void RegisterFleetCommands(CLI::App& app, std::vector<CommandHook>& hooks);

}  // namespace plasmient::cli
