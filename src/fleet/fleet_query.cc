#include "fleet/fleet_query.h"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "base/text.h"
#include "base/time_units.h"
#include "store/clickhouse_rollups.h"

namespace plasmient::fleet {
namespace {

std::string Where(const FleetQuery& q) {
  std::string w = " WHERE 1 = 1";
  if (q.since_ns) w += fmt::format(" AND at_ns >= {}", *q.since_ns);
  if (q.until_ns) w += fmt::format(" AND at_ns < {}", *q.until_ns);
  if (!q.job.empty()) w += " AND job_id = :job";
  return w;
}

}  // namespace

Result<std::int64_t> ParseTime(std::string_view text, std::int64_t now_ns) {
  // Times are Int64 ns since 1970: from 1970 to 2262 (the last whole second that fits).
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / kNsPerS;
  auto out_of_range = [&] {
    return Fail("{}: out of range (Unix seconds 0 to {}: 1970 to 2262)", text, kMaxSeconds);
  };
  if (auto v = ParseInt(text)) {
    if (*v < 0 || *v > kMaxSeconds) return out_of_range();
    return *v * kNsPerS;
  }
  if (text.size() >= 2) {
    char unit = text.back();
    std::int64_t per = unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;
    auto v = ParseInt(text.substr(0, text.size() - 1));
    if (per && v && *v >= 0) {
      if (*v > now_ns / kNsPerS / per) return out_of_range();  // before 1970
      return now_ns - *v * per * kNsPerS;
    }
  }
  std::tm tm{};
  std::string s(text);
  const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end || !(*end == '\0' || (*end == 'Z' && end[1] == '\0'))) {
    tm = {};
    end = strptime(s.c_str(), "%Y-%m-%d", &tm);
    if (!end || *end != '\0')
      return Fail("{}: expected Unix seconds, YYYY-MM-DD[THH:MM:SS[Z]] or an age like 24h, 7d", text);
  }
  std::int64_t seconds = static_cast<std::int64_t>(timegm(&tm));
  if (seconds < 0 || seconds > kMaxSeconds) return out_of_range();
  return seconds * kNsPerS;
}

namespace {

// The window over rollup rows, whose at_ns is the start of their hour: every hour that meets
// [since, until) is read whole.
std::string RollupWhere(const FleetQuery& q) {
  constexpr std::int64_t kBucket = store::kRollupBucketNs;
  std::string w = " WHERE 1 = 1";
  if (q.since_ns) w += fmt::format(" AND at_ns >= {}", *q.since_ns - *q.since_ns % kBucket);
  if (q.until_ns && *q.until_ns <= std::numeric_limits<std::int64_t>::max() - kBucket) {
    w += fmt::format(" AND at_ns < {}", *q.until_ns + (kBucket - *q.until_ns % kBucket) % kBucket);
  }
  if (!q.job.empty()) w += " AND job_id = :job";
  return w;
}

// Where a question's sums come from: the raw rows (SQLite; ClickHouse with --raw-rows), or
// ClickHouse's rollups (clickhouse_rollups.cc), whose rows hold partial sums of the same figures,
// so each answer has the same columns, in the same order, from either.
struct Source {
  const store::QueryableStore& store;
  bool rollups;
  std::string From(store::TableId table, store::RollupId rollup) const {
    return rollups ? store.RollupName(rollup) : store.TableName(table);
  }
  // The expression over the raw rows, or the one over the rollup that sums to the same.
  std::string_view Sum(std::string_view raw, std::string_view rolled) const { return rollups ? rolled : raw; }
};

// Every ORDER BY ends in the grouping key, so rows that tie (identical jobs) come out in one
// order on every store and every read, however the engine's parts happen to be laid out.
std::string SqlText(const FleetQuery& q, const Source& s) {
  std::string where = s.rollups ? RollupWhere(q) : Where(q);
  std::string order = q.by_gpu_hours ? "gpu_hours" : "wasted_gpu_hours";
  const auto distinct_analyses = s.Sum("count(DISTINCT job_key)", "sum(analyses)");
  const auto analyses = s.Sum("count(*)", "sum(analyses)");
  auto top = [&](store::TableId table, store::RollupId rollup, std::string_view alias) {
    return fmt::format(
        "SELECT name AS {}, sum(lost_s) / 3600 AS wasted_gpu_hours, sum(time_s) / 3600 AS gpu_hours, "
        "sum(calls) AS total_calls, {} AS analyses FROM {}{} GROUP BY name "
        "ORDER BY {} DESC, name LIMIT {}",
        alias, distinct_analyses, s.From(table, rollup), where, order, q.limit);
  };
  const auto gpu_s = s.Sum("wall_s", "gpu_s"), useful_s = s.Sum("useful_s", "useful_gpu_s");
  auto jobs = [&](std::string_view key, std::string_view alias) {
    return fmt::format(
        "SELECT {} AS {}, sum({}) / 3600 AS wasted_gpu_hours, sum({}) / 3600 AS gpu_hours, "
        "sum({}) / sum({}) AS achieved, {} AS analyses FROM {}{} GROUP BY {} ORDER BY {} DESC, {} LIMIT {}",
        key, alias, s.Sum("wall_s - useful_s", "wasted_gpu_s"), gpu_s, useful_s, gpu_s, analyses,
        s.From(store::TableId::kJobs, store::RollupId::kJobsByHour), where, key, order, key, q.limit);
  };
  switch (q.question) {
    case FleetQuestion::kTopKernels:
      return top(store::TableId::kKernelAggregates, store::RollupId::kKernelsByHour, "kernel");
    case FleetQuestion::kTopOps:
      return top(store::TableId::kOpAggregates, store::RollupId::kOpsByHour, "op");
    case FleetQuestion::kTopLayers:
      return fmt::format(
          "SELECT type AS layer, sum(lost_s) / 3600 AS wasted_gpu_hours, sum(gpu_time_s) / 3600 AS "
          "gpu_hours, "
          "sum(useful_s) / sum(gpu_time_s) AS achieved, sum(instances) AS instances, sum(calls) AS "
          "total_calls, "
          "{} AS analyses FROM {}{} GROUP BY type ORDER BY {} DESC, type LIMIT {}",
          distinct_analyses, s.From(store::TableId::kLayerTypes, store::RollupId::kLayersByHour), where,
          order, q.limit);
    case FleetQuestion::kTopJobs:
      if (q.by_recoverable) {
        return fmt::format(
            "SELECT job_id AS job, sum({}) / 3600 AS recoverable_gpu_hours, sum({}) / 3600 AS "
            "recoverable_spend, "
            "sum(wall_s) / 3600 AS gpu_hours, {} AS out_of_range, {} AS analyses FROM {}{} AND lever = "
            ":lever "
            "AND value = {:.17g} GROUP BY job_id ORDER BY recoverable_gpu_hours DESC, job_id LIMIT {}",
            s.Sum("recoverable_gpu_s", "recovered_gpu_s"),
            s.Sum("recoverable_gpu_s * price_per_gpu_hour", "recovered_spend_s"),
            s.Sum("max(out_of_range)", "sum(out_of_range) > 0"), analyses,
            s.From(store::TableId::kLeverProjections, store::RollupId::kLeversByHour), where, q.lever_value,
            q.limit);
      }
      return jobs("job_id", "job");
    case FleetQuestion::kTopUsers:
      return jobs("user_label", "user_name");
    case FleetQuestion::kTopTeams:
      return jobs("team_label", "team");
    case FleetQuestion::kTrend:
      if (s.rollups) {  // per job per hour: a fleet's analyses are too many to list
        return fmt::format(
            "SELECT job_id AS job, at_ns, sum(useful_gpu_s) / sum(gpu_s) AS achieved, sum(utilization_gpu_s) "
            "/ "
            "sum(gpu_s) AS utilization, sum(gpu_s) AS gpu_seconds, sum(analyses) AS analyses FROM {}{} "
            "GROUP BY job_id, at_ns ORDER BY job_id, at_ns LIMIT {}",
            s.From(store::TableId::kJobs, store::RollupId::kJobsByHour), where, q.limit);
      }
      return fmt::format(
          "SELECT job_id AS job, at_ns, achieved, utilization, wall_s AS gpu_seconds, ranks FROM {}{} "
          "ORDER BY job_id, at_ns LIMIT {}",
          s.From(store::TableId::kJobs, store::RollupId::kJobsByHour), where, q.limit);
    case FleetQuestion::kStragglers: {
      // A job analyzed more than once has one row per analysis: its largest wait is shown.
      const auto max = s.Sum("max", "maxMerge");
      return fmt::format(
          "SELECT job_id AS job, rank AS straggler_rank, {0}(caused_wait_s) AS waited_s, "
          "{0}(capacity_fraction) AS of_capacity, {0}(late_collectives) AS late_at, {1} AS analyses "
          "FROM {2}{3} GROUP BY job_id, rank ORDER BY waited_s DESC, job_id, straggler_rank LIMIT {4}",
          max, s.Sum("count(*)", "countMerge(analyses)"),
          s.From(store::TableId::kStragglers, store::RollupId::kStragglersByHour), where, q.limit);
    }
  }
  return "";
}

}  // namespace

store::SqlQuery BuildSql(const FleetQuery& q, const store::QueryableStore& store) {
  const Source source{store, !store.RollupName(store::RollupId::kJobsByHour).empty()};
  store::SqlQuery query{SqlText(q, source), {}};
  if (!q.job.empty()) query.params.push_back({":job", q.job});
  if (q.by_recoverable && q.question == FleetQuestion::kTopJobs) query.params.push_back({":lever", q.lever});
  return query;
}

Result<store::QueryResult> QueryLeverBill(store::QueryableStore& store, FleetQuery query,
                                          std::span<const whatif::LeverKey> levers) {
  query.question = FleetQuestion::kTopJobs;
  query.by_recoverable = true;
  struct Ranked {
    std::size_t job = 0, lever = 0;
    std::vector<std::string> cells;
  };
  store::QueryResult out;
  std::unordered_map<std::string, std::size_t> jobs;  // job → its place, in order of first appearance
  std::vector<Ranked> ranked;
  for (std::size_t l = 0; l < levers.size(); ++l) {
    query.lever = levers[l].name;
    query.lever_value = levers[l].value;
    auto r = store.Query(BuildSql(query, store));
    if (!r) return std::unexpected(r.error());
    if (r->columns.empty()) continue;
    if (out.columns.empty()) {
      out.columns = r->columns;
      out.columns.insert(out.columns.begin() + 1, "lever");
    }
    for (auto& row : r->rows) {
      const std::size_t job = jobs.try_emplace(row.front(), jobs.size()).first->second;
      row.insert(row.begin() + 1, whatif::LeverLabel(levers[l]));
      ranked.push_back({job, l, std::move(row)});
    }
  }
  std::ranges::stable_sort(ranked, {}, [](const Ranked& r) { return std::pair{r.job, r.lever}; });
  for (Ranked& r : ranked) out.rows.push_back(std::move(r.cells));
  return out;
}

std::string FormatTsv(const store::QueryResult& r) {
  std::string text;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) text += '\t';
      store::AppendTsvCell(text, cells[i]);
    }
    text += '\n';
  };
  line(r.columns);
  for (const auto& row : r.rows) line(row);
  return text;
}

std::string FormatTable(const store::QueryResult& r) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back(r.columns);
  for (const auto& row : r.rows) {
    auto& out = cells.emplace_back();
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string& c = row[i];
      double dv = 0;
      auto rd = std::from_chars(c.data(), c.data() + c.size(), dv);
      bool is_at = i < r.columns.size() && r.columns[i] == "at_ns";
      auto iv = ParseInt(c);
      if (is_at && iv) {
        std::time_t t = static_cast<std::time_t>(*iv / kNsPerS);
        std::tm tm{};
        gmtime_r(&t, &tm);
        char buf[32];
        std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
        out.emplace_back(buf);
      } else if (!iv && rd.ec == std::errc() && rd.ptr == c.data() + c.size()) {
        out.push_back(fmt::format("{:.6g}", dv));
      } else {
        out.push_back(c.empty() ? "-" : c);
      }
    }
  }
  std::vector<std::size_t> width(r.columns.size(), 0);
  for (const auto& row : cells) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  }
  std::string text;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      line += fmt::format("{:<{}}", row[i], i + 1 < row.size() ? width[i] + 2 : 0);
    }
    text += line + "\n";
  }
  if (r.rows.empty()) text += "(no rows)\n";
  return text;
}

}  // namespace plasmient::fleet
