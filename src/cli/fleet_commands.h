// `plasmient serve`, `plasmient fleet` and `plasmient bill`: flags, signals and exit codes;
// the work is in src/fleet.
#pragma once

#include <span>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"

namespace plasmient::cli {

struct RecordFlags;
// --db, --clickhouse, --clickhouse-db, --job, --label, --host on analyze.
void AddRecordOptions(CLI::App& app, RecordFlags& flags);
// Records the verdict when --db or --clickhouse was given, with the lever projections of the
// ranks' what-if tables; returns an exit code (0: fine).
int RecordIfAsked(const RecordFlags& flags, const verdict::JobVerdict& job,
                  const std::vector<std::string>& given, const std::vector<std::string>& files,
                  std::span<const whatif::RankTable> tables);
// Whether RecordIfAsked will record: the analysis then collects the what-if tables.
bool RecordAsked(const RecordFlags& flags);

void RegisterFleetCommands(CLI::App& app, std::vector<CommandHook>& hooks);

}  // namespace plasmient::cli
