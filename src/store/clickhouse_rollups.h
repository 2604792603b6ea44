// ClickHouse's rollups: per hour × job (× kernel, op, module type, lever, straggler rank) sums of
// the raw rows, kept by materialized views as rows are inserted, so that `plasmient fleet` reads
// thousands of rows where a fleet's raw tables hold billions. Each rollup's columns are defined
// once here, as the SELECT over its raw table: the view runs it on every inserted block, the
// migration of an existing store runs it once over the table (read FINAL), and tests run it over
// the raw rows to check what the view stored.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "store/schema.h"

namespace plasmient::store {

enum class RollupId : std::uint8_t {
  kJobsByHour,        // --top jobs, --top users, --top teams, --trend
  kKernelsByHour,     // --top kernels
  kOpsByHour,         // --top ops
  kLayersByHour,      // --top layers
  kLeversByHour,      // --top jobs --by recoverable-gpu-hours, bill --whatif
  kStragglersByHour,  // --stragglers
  kCount
};

// A rollup row's time: the start of the hour of its analyses (at_ns, Unix ns).
inline constexpr std::int64_t kRollupBucketNs = 3'600'000'000'000;
// Raw tables are partitioned by this (a day), so old rows are dropped a partition at a time.
inline constexpr std::int64_t kRawPartitionNs = 86'400'000'000'000;

struct RollupColumn {
  std::string_view name;
  std::string_view type;  // ClickHouse type
  std::string_view expr;  // over the raw table's rows, aggregated per block for values
};

struct RollupSpec {
  RollupId id;
  std::string_view name;  // "jobs_by_hour"
  TableId source;
  std::span<const RollupColumn> keys;    // ORDER BY; the first is the hour (at_ns)
  std::span<const RollupColumn> values;  // summed (SummingMergeTree), or -State (AggregatingMergeTree)
  bool aggregating = false;              // AggregatingMergeTree: values read with -Merge
};

std::span<const RollupSpec> Rollups();
const RollupSpec& Rollup(RollupId id);

// "at_ns Int64, job_id String, …": the rollup table's columns.
std::string RollupColumnsSql(const RollupSpec& spec);
// The rollup's rows for the raw rows of `from` ("db.kernel_aggregates_local FINAL").
std::string RollupSelectSql(const RollupSpec& spec, std::string_view from);
// "SummingMergeTree() ORDER BY (at_ns, job_id, name)".
std::string RollupEngineSql(const RollupSpec& spec);

}  // namespace plasmient::store
