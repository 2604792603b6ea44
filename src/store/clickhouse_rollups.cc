#include "store/clickhouse_rollups.h"

#include <array>

namespace plasmient::store {
namespace {

// The hour an analysis falls in; every row of one analysis shares its at_ns, so one analysis
// lands in one hour and per-hour counts of analyses add up over hours.
constexpr RollupColumn kHour = {"at_ns", "Int64", "intDiv(at_ns, 3600000000000) * 3600000000000"};
static_assert(kRollupBucketNs == 3'600'000'000'000, "kHour's expression spells the bucket out");
constexpr RollupColumn kJob = {"job_id", "String", "job_id"};

// `analyses` counts distinct job_keys per block. That is exact because a job_key's rows of one
// table always arrive in one block: the store inserts an analysis's rows of a table in one INSERT
// and keeps each INSERT one block (max_insert_block_size), and the job_key picks its shard.
constexpr RollupColumn kDistinctAnalyses = {"analyses", "UInt64", "uniqExact(job_key)"};
// Tables with one row per analysis count rows.
constexpr RollupColumn kRowAnalyses = {"analyses", "UInt64", "count()"};

constexpr RollupColumn kJobsKeys[] = {
    kHour, kJob, {"user_label", "String", "user_label"}, {"team_label", "String", "team_label"}};
// ClickHouse puts an alias in place of the column of that name anywhere in the SELECT, so a value
// whose name is a column that another value reads is named apart (wall_s is summed as gpu_s).
constexpr RollupColumn kJobsValues[] = {{"gpu_s", "Float64", "sum(wall_s)"},
                                        {"useful_gpu_s", "Float64", "sum(useful_s)"},
                                        {"wasted_gpu_s", "Float64", "sum(wall_s - useful_s)"},
                                        // utilization weighted by GPU-seconds, for --trend per hour
                                        {"utilization_gpu_s", "Float64", "sum(utilization * wall_s)"},
                                        kRowAnalyses};

constexpr RollupColumn kAggregateKeys[] = {kHour, kJob, {"name", "String", "name"}};
constexpr RollupColumn kAggregateValues[] = {{"lost_s", "Float64", "sum(lost_s)"},
                                             {"time_s", "Float64", "sum(time_s)"},
                                             {"calls", "Int64", "sum(calls)"},
                                             kDistinctAnalyses};

constexpr RollupColumn kLayersKeys[] = {kHour, kJob, {"type", "String", "type"}};
constexpr RollupColumn kLayersValues[] = {
    {"lost_s", "Float64", "sum(lost_s)"},     {"gpu_time_s", "Float64", "sum(gpu_time_s)"},
    {"useful_s", "Float64", "sum(useful_s)"}, {"instances", "Int64", "sum(instances)"},
    {"calls", "Int64", "sum(calls)"},         kDistinctAnalyses};

constexpr RollupColumn kLeversKeys[] = {
    kHour, kJob, {"lever", "String", "lever"}, {"value", "Float64", "value"}};
constexpr RollupColumn kLeversValues[] = {
    {"recovered_gpu_s", "Float64", "sum(recoverable_gpu_s)"},
    // dollars × 3600: the GPU-seconds at each analysis's price per GPU-hour
    {"recovered_spend_s", "Float64", "sum(recoverable_gpu_s * price_per_gpu_hour)"},
    {"wall_s", "Float64", "sum(wall_s)"},
    // analyses whose projection left its trusted range; > 0 is the raw rows' max(out_of_range)
    {"out_of_range", "Int64", "sum(out_of_range)"},
    kRowAnalyses};

// Largest figures per straggler rank: AggregatingMergeTree, read with maxMerge/countMerge.
constexpr RollupColumn kStragglersKeys[] = {kHour, kJob, {"rank", "Int64", "rank"}};
constexpr RollupColumn kStragglersValues[] = {
    {"caused_wait_s", "AggregateFunction(max, Float64)", "maxState(caused_wait_s)"},
    {"capacity_fraction", "AggregateFunction(max, Float64)", "maxState(capacity_fraction)"},
    {"late_collectives", "AggregateFunction(max, Int64)", "maxState(late_collectives)"},
    {"analyses", "AggregateFunction(count)", "countState()"}};

constexpr RollupSpec kRollups[] = {
    {RollupId::kJobsByHour, "jobs_by_hour", TableId::kJobs, kJobsKeys, kJobsValues},
    {RollupId::kKernelsByHour, "kernels_by_hour", TableId::kKernelAggregates, kAggregateKeys,
     kAggregateValues},
    {RollupId::kOpsByHour, "ops_by_hour", TableId::kOpAggregates, kAggregateKeys, kAggregateValues},
    {RollupId::kLayersByHour, "layers_by_hour", TableId::kLayerTypes, kLayersKeys, kLayersValues},
    {RollupId::kLeversByHour, "levers_by_hour", TableId::kLeverProjections, kLeversKeys, kLeversValues},
    {RollupId::kStragglersByHour, "stragglers_by_hour", TableId::kStragglers, kStragglersKeys,
     kStragglersValues, true},
};
static_assert(std::size(kRollups) == static_cast<std::size_t>(RollupId::kCount));

template <typename F>
std::string Join(std::span<const RollupColumn> columns, F&& cell) {
  std::string out;
  for (const auto& c : columns) {
    if (!out.empty()) out += ", ";
    out += cell(c);
  }
  return out;
}

}  // namespace

std::span<const RollupSpec> Rollups() { return kRollups; }
const RollupSpec& Rollup(RollupId id) { return kRollups[static_cast<std::size_t>(id)]; }

std::string RollupColumnsSql(const RollupSpec& spec) {
  auto ddl = [](const RollupColumn& c) { return std::string(c.name) + " " + std::string(c.type); };
  return Join(spec.keys, ddl) + ", " + Join(spec.values, ddl);
}

std::string RollupSelectSql(const RollupSpec& spec, std::string_view from) {
  auto named = [](const RollupColumn& c) {
    return c.expr == c.name ? std::string(c.name) : std::string(c.expr) + " AS " + std::string(c.name);
  };
  auto name = [](const RollupColumn& c) { return std::string(c.name); };
  return "SELECT " + Join(spec.keys, named) + ", " + Join(spec.values, named) + " FROM " + std::string(from) +
         " GROUP BY " + Join(spec.keys, name);
}

std::string RollupEngineSql(const RollupSpec& spec) {
  auto name = [](const RollupColumn& c) { return std::string(c.name); };
  return std::string(spec.aggregating ? "AggregatingMergeTree()" : "SummingMergeTree()") + " ORDER BY (" +
         Join(spec.keys, name) + ")";
}

}  // namespace plasmient::store
