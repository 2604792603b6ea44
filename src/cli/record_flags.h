// Recording an analysis in the stores from `plasmient analyze` (--db, --clickhouse, --job, --label,
// --host): the flags and the call into src/store.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "store/job_rows.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"

namespace plasmient::cli {

struct RecordFlags;
// --db, --clickhouse, --clickhouse-db, --job, --label, --host on analyze.
void AddRecordOptions(CLI::App& app, RecordFlags& flags);
// Records the verdict when --db or --clickhouse was given, with the lever projections of the
// activity tables its ranks keep; returns an exit code (0: fine).
int RecordIfAsked(const RecordFlags& flags, const verdict::JobVerdict& job,
                  const std::vector<std::string>& given, const std::vector<std::string>& files);
// Whether RecordIfAsked will record: the analysis then collects the what-if tables.
bool RecordAsked(const RecordFlags& flags);

// Parses --label key=value texts into `out`; prints the first bad one and returns false.
bool ParseLabelFlags(const std::vector<std::string>& texts, store::Labels& out);

}  // namespace plasmient::cli
