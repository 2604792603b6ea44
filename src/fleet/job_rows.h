// Flattens a job verdict into the store's rows (schema.h), and finds its stragglers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "fleet/schema.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"

namespace plasmient::fleet {

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

// Parses "key=value" (key: [A-Za-z_][A-Za-z0-9_]*), as given to --label.
Result<std::pair<std::string, std::string>> ParseLabel(std::string_view text);

// A collective in which ranks waited for the last to arrive: matched across ranks by
// (group, seq, kind), or by order within (group, kind) when seq is unknown. Clock-free: a
// rank's collective kernel lasts its own wait plus the transfer, so the shortest instance is
// the last to arrive and the others' extra time is charged to it.
struct Straggler {
  std::string group, kind;
  std::int64_t seq = -1;
  std::int64_t straggler_rank = -1;
  std::int64_t ranks = 0;
  double wait_s = 0;  // Σ over the other ranks of (their duration − the shortest)
  double min_dur_s = 0, max_dur_s = 0;
};

// The job's stragglers, largest wait first, at most `limit`.
std::vector<Straggler> FindStragglers(const verdict::JobVerdict& job, std::size_t limit = 100);

// The cells every row starts with: job_key, job_id, at_ns, host.
Row Common(const JobContext& context);

// Every table's rows for one job; lever_projections from the job's per-activity tables
// (levers.h), none without them.
Batch BuildRows(const verdict::JobVerdict& job, const JobContext& context,
                std::span<const whatif::RankTable> tables = {});

}  // namespace plasmient::fleet
