// CUPTI_ACTIVITY_KIND_RUNTIME (+ _DRIVER) -> model API calls.
//
// nsys 2022.x exports write two rows per call: the API row (eventClass 0 runtime / 1 driver,
// name "cudaLaunchKernel_v7000") and a twin of another class (e.g. 67, name "cudaLaunchKernel")
// with the same correlation id. One call is one row in the model, so a table holding rows of
// other classes is read as two sources merged by start: its runtime/driver rows, and those of
// its other rows that have no runtime/driver twin in the same process.
#include <string>

#include "ingest/nsys_sqlite/nsys_parse_context.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;

enum Col { kStart, kEnd, kGlobalTid, kCorrelation, kNameId };
constexpr int kTwinSource = 1;  // OrderedSource::tag of the "other classes" half

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

// Rows of classes other than runtime/driver: their count, 0 when there are none to dedupe.
Result<std::int64_t> OtherClassRows(ParseContext& ctx, std::string_view table) {
  if (!ctx.schema.HasColumn(table, "eventClass") || !ctx.schema.HasColumn(table, "correlationId")) return 0;
  auto stmt =
      ctx.db.Prepare("SELECT count(*) FROM " + QuoteIdentifier(table) + " WHERE eventClass NOT IN (0, 1)",
                     std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  auto row = stmt->Step();
  if (!row) return std::unexpected(std::move(row.error()));
  return stmt->IntOr(0, 0);
}

Status AddSource(ParseContext& ctx, std::string_view table, const std::string& sql, int tag,
                 std::vector<OrderedSource>& sources) {
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  sources.push_back(OrderedSource{.stmt = std::move(*stmt), .tag = tag, .table = table});
  return Ok();
}

// Adds `table`'s sources; returns how many of its rows are twins (classes other than 0/1).
Result<std::int64_t> OpenSources(ParseContext& ctx, std::string_view table,
                                 std::vector<OrderedSource>& sources) {
  const auto& schema = ctx.schema;
  if (!schema.HasTable(table)) return 0;
  if (!schema.HasColumn(table, "start") || !schema.HasColumn(table, "end")) {
    ctx.quality().Add(Dq::kMissingColumn);
    return 0;
  }
  auto& dq = ctx.quality();
  std::string select = "SELECT start, \"end\", " + schema.ColumnOrNull(table, {"globalTid"}, dq) + ", " +
                       schema.ColumnOrNull(table, {"correlationId"}, dq) + ", " +
                       schema.ColumnOrNull(table, {"nameId"}, dq) + " FROM " + QuoteIdentifier(table);
  auto order = OrderByStart(ctx, table);  // a subset of a start-ordered table is start-ordered
  if (!order) return std::unexpected(std::move(order.error()));
  auto others = OtherClassRows(ctx, table);
  if (!others) return std::unexpected(std::move(others.error()));
  if (*others == 0) {
    PLASMIENT_TRY(AddSource(ctx, table, select + *order, 0, sources));
    return 0;
  }
  PLASMIENT_TRY(AddSource(ctx, table, select + " WHERE eventClass IN (0, 1)" + *order, 0, sources));
  // (pid, correlation) as one integer: pid has 24 bits, CUPTI correlation ids 32. The IN list is
  // built once (SQLite materializes it as a temporary index), so the pairing costs one sort.
  const std::string key = "((((globalTid >> 24) & 16777215) << 32) | (correlationId & 4294967295))";
  std::string twins =
      "SELECT start, \"end\", globalTid, correlationId, nameId FROM " + QuoteIdentifier(table) +
      " WHERE eventClass NOT IN (0, 1) AND NOT (correlationId > 0 AND " + key + " IN (SELECT " + key +
      " FROM " + QuoteIdentifier(table) + " WHERE eventClass IN (0, 1) AND correlationId > 0))" + *order;
  if (!schema.HasColumn(table, "globalTid") || !schema.HasColumn(table, "nameId")) {
    twins = select + " WHERE eventClass NOT IN (0, 1)" + *order;  // cannot pair them: keep all
  }
  PLASMIENT_TRY(AddSource(ctx, table, twins, kTwinSource, sources));
  return *others;
}

}  // namespace

Status ParseApiCalls(ParseContext& ctx) {
  if (!ctx.schema.HasTable(kRuntimeTable) && !ctx.schema.HasTable(kDriverTable)) {
    ctx.quality().Add(Dq::kMissingTable);
  }
  std::vector<OrderedSource> sources;
  std::int64_t other_rows = 0;
  for (auto table : {kRuntimeTable, kDriverTable}) {
    auto others = OpenSources(ctx, table, sources);
    if (!others) return std::unexpected(std::move(others.error()));
    other_rows += *others;
  }
  PLASMIENT_TRY(MergeByStart(ctx, sources, [&](const Statement& s, const OrderedSource&) -> Status {
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
  }));
  std::int64_t kept_others = 0;
  for (const auto& s : sources) kept_others += s.tag == kTwinSource ? s.rows : 0;
  ctx.quality().Add(Dq::kDuplicateApiRow, other_rows - kept_others);
  return Ok();
}

}  // namespace plasmient::ingest::nsys
