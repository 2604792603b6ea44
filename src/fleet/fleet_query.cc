#include "fleet/fleet_query.h"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "base/text.h"

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
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000;
  auto out_of_range = [&] {
    return Fail("{}: out of range (Unix seconds 0 to {}: 1970 to 2262)", text, kMaxSeconds);
  };
  if (auto v = ParseInt(text)) {
    if (*v < 0 || *v > kMaxSeconds) return out_of_range();
    return *v * 1'000'000'000;
  }
  if (text.size() >= 2) {
    char unit = text.back();
    std::int64_t per = unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;
    auto v = ParseInt(text.substr(0, text.size() - 1));
    if (per && v && *v >= 0) {
      if (*v > now_ns / 1'000'000'000 / per) return out_of_range();  // before 1970
      return now_ns - *v * per * 1'000'000'000;
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
  return seconds * 1'000'000'000;
}

namespace {

// Every ORDER BY ends in the grouping key, so rows that tie (identical jobs) come out in one
// order on every store and every read, however the engine's parts happen to be laid out.
std::string SqlText(const FleetQuery& q, const QueryableStore& store) {
  std::string where = Where(q);
  std::string order = q.by_gpu_hours ? "gpu_hours" : "wasted_gpu_hours";
  auto top = [&](TableId table, std::string_view alias) {
    return fmt::format(
        "SELECT name AS {}, sum(lost_s) / 3600 AS wasted_gpu_hours, sum(time_s) / 3600 AS gpu_hours, "
        "sum(calls) AS total_calls, count(DISTINCT job_key) AS analyses FROM {}{} GROUP BY name "
        "ORDER BY {} DESC, name LIMIT {}",
        alias, store.TableName(table), where, order, q.limit);
  };
  auto jobs = [&](std::string_view key, std::string_view alias) {
    return fmt::format(
        "SELECT {} AS {}, sum(wall_s - useful_s) / 3600 AS wasted_gpu_hours, sum(wall_s) / 3600 AS "
        "gpu_hours, "
        "sum(useful_s) / sum(wall_s) AS achieved, count(*) AS analyses FROM {}{} GROUP BY {} "
        "ORDER BY {} DESC, {} LIMIT {}",
        key, alias, store.TableName(TableId::kJobs), where, key, order, key, q.limit);
  };
  switch (q.question) {
    case FleetQuestion::kTopKernels:
      return top(TableId::kKernelAggregates, "kernel");
    case FleetQuestion::kTopOps:
      return top(TableId::kOpAggregates, "op");
    case FleetQuestion::kTopLayers:
      return fmt::format(
          "SELECT type AS layer, sum(lost_s) / 3600 AS wasted_gpu_hours, sum(gpu_time_s) / 3600 AS "
          "gpu_hours, "
          "sum(useful_s) / sum(gpu_time_s) AS achieved, sum(instances) AS instances, sum(calls) AS "
          "total_calls, "
          "count(DISTINCT job_key) AS analyses FROM {}{} GROUP BY type ORDER BY {} DESC, type LIMIT {}",
          store.TableName(TableId::kLayerTypes), where, order, q.limit);
    case FleetQuestion::kTopJobs:
      if (q.by_recoverable) {
        return fmt::format(
            "SELECT job_id AS job, sum(recoverable_gpu_s) / 3600 AS recoverable_gpu_hours, "
            "sum(recoverable_gpu_s * price_per_gpu_hour) / 3600 AS recoverable_spend, sum(wall_s) / 3600 AS "
            "gpu_hours, max(out_of_range) AS out_of_range, count(*) AS analyses FROM {}{} AND lever = :lever "
            "AND value = {:.17g} GROUP BY job_id ORDER BY recoverable_gpu_hours DESC, job_id LIMIT {}",
            store.TableName(TableId::kLeverProjections), where, q.lever_value, q.limit);
      }
      return jobs("job_id", "job");
    case FleetQuestion::kTopUsers:
      return jobs("user_label", "user_name");
    case FleetQuestion::kTrend:
      return fmt::format(
          "SELECT job_id AS job, at_ns, achieved, utilization, wall_s AS gpu_seconds, ranks FROM {}{} "
          "ORDER BY job_id, at_ns LIMIT {}",
          store.TableName(TableId::kJobs), where, q.limit);
    case FleetQuestion::kStragglers:
      return fmt::format(
          // A job analyzed more than once has one row per analysis: its largest wait is shown.
          "SELECT job_id AS job, rank AS straggler_rank, max(caused_wait_s) AS waited_s, "
          "max(capacity_fraction) AS of_capacity, max(late_collectives) AS late_at, count(*) AS analyses "
          "FROM {}{} GROUP BY job_id, rank ORDER BY waited_s DESC, job_id, straggler_rank LIMIT {}",
          store.TableName(TableId::kStragglers), where, q.limit);
  }
  return "";
}

}  // namespace

SqlQuery BuildSql(const FleetQuery& q, const QueryableStore& store) {
  SqlQuery query{SqlText(q, store), {}};
  if (!q.job.empty()) query.params.push_back({":job", q.job});
  if (q.by_recoverable && q.question == FleetQuestion::kTopJobs) query.params.push_back({":lever", q.lever});
  return query;
}

Result<QueryResult> QueryLeverBill(QueryableStore& store, FleetQuery query,
                                   std::span<const LeverKey> levers) {
  query.question = FleetQuestion::kTopJobs;
  query.by_recoverable = true;
  struct Ranked {
    std::size_t job = 0, lever = 0;
    std::vector<std::string> cells;
  };
  QueryResult out;
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
      row.insert(row.begin() + 1, LeverLabel(levers[l]));
      ranked.push_back({job, l, std::move(row)});
    }
  }
  std::ranges::stable_sort(ranked, {}, [](const Ranked& r) { return std::pair{r.job, r.lever}; });
  for (Ranked& r : ranked) out.rows.push_back(std::move(r.cells));
  return out;
}

std::string FormatTable(const QueryResult& r) {
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
        std::time_t t = static_cast<std::time_t>(*iv / 1'000'000'000);
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
