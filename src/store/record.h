// Recording one `plasmient analyze` run in the stores, as serve does for a spool entry.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "store/clickhouse_store.h"
#include "store/job_rows.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"

namespace plasmient::store {

struct RecordOptions {
  std::string db_path;                          // SQLite store, or empty
  std::optional<ClickHouseOptions> clickhouse;  // inserted directly (no outbox: the command fails loudly)
  std::string job_id;                           // empty: the input folder's name or the file's stem
  Labels labels;
  std::string host;  // empty: the host name
};

// Hashes the inputs into the job key, builds the rows and records them (idempotently).
// Returns how many stores took a new analysis (0 when it was already there).
// The lever projections come from the activity tables the ranks keep (keep_activities).
Result<int> RecordAnalysis(const verdict::JobVerdict& job, const std::vector<std::string>& given_inputs,
                           const std::vector<std::filesystem::path>& files, const RecordOptions& options);

std::string LocalHostName();

}  // namespace plasmient::store
