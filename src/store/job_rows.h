// Flattens a job verdict into the store's rows (schema.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "store/schema.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"

namespace plasmient::store {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Who and what an analysis was: the columns every row starts with, and the job's labels.
struct JobContext {
  std::string job_key;     // content hash of the job's traces (HashFiles), hex
  std::string job_id;      // the job's name: spool folder or file stem, or --job
  std::int64_t at_ns = 0;  // when it was analyzed, Unix ns
  std::string host;
  Labels labels;  // --label key=value; "user" and "team" get their own columns
  std::vector<std::string> inputs;
};

// Parses "key=value" (key: [A-Za-z_][A-Za-z0-9_]*, at most kMaxLabelKeyBytes), as given to
// --label and in a marker; the value bounded (BoundLabel: at most 256 bytes, valid UTF-8).
inline constexpr std::size_t kMaxLabelKeyBytes = 64;
Result<std::pair<std::string, std::string>> ParseLabel(std::string_view text);

// The cells every row starts with: job_key, job_id, at_ns, host.
Row Common(const JobContext& context);

// Every table's rows for one job; lever_projections from the activity tables its ranks keep
// (whatif/levers.h; AnalyzeOptions::keep_activities), none without them.
Batch BuildRows(const verdict::JobVerdict& job, const JobContext& context);

}  // namespace plasmient::store
