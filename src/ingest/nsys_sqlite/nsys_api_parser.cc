// CUPTI_ACTIVITY_KIND_RUNTIME (+ _DRIVER) -> model API calls.
//
// nsys 2022.x exports write two rows per call: the API row (eventClass 0 runtime / 1 driver,
// name "cudaLaunchKernel_v7000") and a second one of another class (e.g. 67, name
// "cudaLaunchKernel") with the same correlation id. One call is one row in the model: per
// (pid, correlationId) the runtime/driver-class row is kept.
#include <string>

#include "ingest/nsys_sqlite/nsys_parse_context.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;

enum Col { kStart, kEnd, kGlobalTid, kCorrelation, kNameId, kCopyRank };

// nsys appends the CUDA version that introduced an entry point: "cudaMemcpy_v3020". Kineto and
// CUPTI callbacks say "cudaMemcpy"; the model keeps the plain name.
std::string_view StripVersionSuffix(std::string_view name) {
  auto pos = name.rfind("_v");
  if (pos == std::string_view::npos || pos + 2 == name.size()) return name;
  for (char c : name.substr(pos + 2)) {
    if (c < '0' || c > '9') return name;
  }
  return name.substr(0, pos);
}

// Whether `table` may hold duplicated rows: older schema, or rows of non-API classes.
Result<bool> NeedsDedupe(ParseContext& ctx, std::string_view table) {
  if (!ctx.schema.HasColumn(table, "eventClass")) return ctx.schema_major < 3;
  if (ctx.schema_major >= 0 && ctx.schema_major < 3) return true;
  auto probe = ctx.db.Prepare("SELECT 1 FROM " + QuoteIdentifier(table) + " WHERE eventClass NOT IN (0, 1) LIMIT 1",
                              std::string(table));
  if (!probe) return std::unexpected(std::move(probe.error()));
  return probe->Step();
}

Result<std::optional<OrderedSource>> OpenSource(ParseContext& ctx, std::string_view table) {
  const auto& schema = ctx.schema;
  if (!schema.HasTable(table)) return std::nullopt;
  if (!schema.HasColumn(table, "start") || !schema.HasColumn(table, "end")) {
    ctx.quality().Add(Dq::kMissingColumn);
    return std::nullopt;
  }
  auto& dq = ctx.quality();
  std::string tid = schema.ColumnOrNull(table, {"globalTid"}, dq);
  std::string corr = schema.ColumnOrNull(table, {"correlationId"}, dq);
  std::string name = schema.ColumnOrNull(table, {"nameId"}, dq);
  auto dedupe = NeedsDedupe(ctx, table);
  if (!dedupe) return std::unexpected(std::move(dedupe.error()));
  std::string copy_rank = "1";
  if (*dedupe && corr != "NULL") {
    std::string prefer = schema.HasColumn(table, "eventClass") ? "eventClass NOT IN (0, 1), " : "";
    copy_rank = "CASE WHEN " + corr + " IS NULL OR " + corr + " = 0 THEN 1 ELSE row_number() OVER (PARTITION BY (" +
                tid + " >> 24) & 16777215, " + corr + " ORDER BY " + prefer + "start) END";
  }
  std::string sql = "SELECT start, \"end\", " + tid + ", " + corr + ", " + name + ", " + copy_rank + " FROM " +
                    QuoteIdentifier(table) + " ORDER BY start";
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  return OrderedSource{.stmt = std::move(*stmt), .table = table};
}

}  // namespace

Status ParseApiCalls(ParseContext& ctx) {
  if (!ctx.schema.HasTable(kRuntimeTable) && !ctx.schema.HasTable(kDriverTable)) {
    ctx.quality().Add(Dq::kMissingTable);
  }
  std::vector<OrderedSource> sources;
  for (auto table : {kRuntimeTable, kDriverTable}) {
    auto source = OpenSource(ctx, table);
    if (!source) return std::unexpected(std::move(source.error()));
    if (*source) sources.push_back(std::move(**source));
  }
  return MergeByStart(ctx, sources, [&](const Statement& s, const OrderedSource&) -> Status {
    if (s.IntOr(kCopyRank, 1) > 1) {
      ctx.quality().Add(Dq::kDuplicateApiRow);
      return Ok();
    }
    auto name = ctx.strings.GetColumn(s, kNameId);
    if (!name) return std::unexpected(std::move(name.error()));
    model::ApiRow row{.pid = model::kNoId, .tid = model::kNoId};
    row.start_ns = s.Int(kStart) + ctx.base_ns;
    row.end_ns = s.IntOr(kEnd, s.Int(kStart)) + ctx.base_ns;
    if (!s.IsNull(kGlobalTid)) {
      row.pid = PidOf(s.Int(kGlobalTid));
      row.tid = TidOf(s.Int(kGlobalTid));
    }
    row.name = StripVersionSuffix(*name);
    row.correlation = s.IntOr(kCorrelation, model::kNoId);
    ctx.builder.AddApi(row);
    return Ok();
  });
}

}  // namespace plasmient::ingest::nsys
