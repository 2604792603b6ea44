// `plasmient fleet`: the fleet's questions as SQL that runs unchanged on SQLite and ClickHouse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "store/store.h"
#include "whatif/levers.h"

namespace plasmient::fleet {

enum class FleetQuestion : std::uint8_t {
  kTopKernels,  // --top kernels
  kTopOps,      // --top ops
  kTopLayers,   // --top layers: module types across jobs
  kTopJobs,     // --top jobs
  kTopUsers,    // --top users
  kTopTeams,    // --top teams
  kTrend,       // --trend: achieved fraction per analysis of each job (per hour from ClickHouse's
                //   rollups), in time order
  kStragglers,  // --stragglers: ranks others waited for, most waited-for first
};

struct FleetQuery {
  FleetQuestion question = FleetQuestion::kTopKernels;
  bool by_gpu_hours = false;  // --by gpu-hours (default wasted-gpu-hours)
  // --top jobs --by recoverable-gpu-hours: jobs by the GPU-hours the lever would free
  // (lever_projections, docs/fleet.md "Levers"); `lever` and `lever_value` as levers.h names them.
  bool by_recoverable = false;
  std::string lever = "overlap-comm";
  double lever_value = 0;
  std::optional<std::int64_t> since_ns, until_ns;
  std::string job;  // --job: only this job
  std::int64_t limit = 20;
};

// "1764460800" (Unix seconds), "2026-11-30", "2026-11-30T04:00:00Z", or "24h"/"7d"/"30m"
// (that long before now_ns).
Result<std::int64_t> ParseTime(std::string_view text, std::int64_t now_ns);

// The query for a question, its values as named parameters (":job").
store::SqlQuery BuildSql(const FleetQuery& query, const store::QueryableStore& store);

// `plasmient bill --whatif`: what each lever would recover per job. The rows are those of
// `fleet --top jobs --by recoverable-gpu-hours --lever L` for each lever (BuildSql, at most
// query.limit jobs per lever), with a `lever` column (LeverLabel) after the job; jobs in the order
// of the first lever's ranking (then of the next lever's, for jobs it lacks), each job's levers in
// the order given. The query's question and lever are set here; its window and job filter are kept.
Result<store::QueryResult> QueryLeverBill(store::QueryableStore& store, FleetQuery query,
                                          std::span<const whatif::LeverKey> levers);

// A fixed-width table; numbers to 6 significant digits, at_ns as UTC time.
std::string FormatTable(const store::QueryResult& result);
// TabSeparated with a header line: the cells as the store returned them (numbers in full).
std::string FormatTsv(const store::QueryResult& result);

}  // namespace plasmient::fleet
