// PROFILER_OVERHEAD -> the model's profiler overhead: the time Nsight Systems and CUPTI spent on
// their own work in the program's threads (instrumentation, resource management, buffer flushes).
#include "ingest/nsys_sqlite/nsys_parse_context.h"

namespace plasmient::ingest::nsys {
namespace {

enum Col { kStart, kEnd, kGlobalTid, kNameId };

}  // namespace

Status ParseProfilerOverhead(ParseContext& ctx) {
  const auto& schema = ctx.schema;
  constexpr std::string_view table = kProfilerOverheadTable;
  if (!schema.HasTable(table)) return Ok();  // written only where the profiler recorded some
  if (!schema.HasColumn(table, "start") || !schema.HasColumn(table, "end")) {
    ctx.quality().Add(model::Dq::kMissingColumn);
    return Ok();
  }
  auto& dq = ctx.quality();
  auto order = OrderByStart(ctx, table);
  if (!order) return std::unexpected(std::move(order.error()));
  const std::string sql = "SELECT start, \"end\", " + schema.ColumnOrNull(table, {"globalTid"}, dq) + ", " +
                          schema.ColumnOrNull(table, {"nameId"}, dq) + " FROM " + QuoteIdentifier(table) +
                          *order;
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::vector<OrderedSource> sources;
  sources.push_back(OrderedSource{.stmt = std::move(*stmt), .table = table});
  return MergeByStart(ctx, sources, [&](const Statement& s, const OrderedSource&) -> Status {
    std::string_view name = "profiler overhead";
    if (!s.IsNull(kNameId)) {
      auto registered = ctx.strings.GetColumn(s, kNameId);
      if (!registered) return std::unexpected(std::move(registered.error()));
      name = *registered;
    }
    const bool thread = !s.IsNull(kGlobalTid);
    ctx.builder.AddOverhead({.start_ns = s.Int(kStart) + ctx.base_ns,
                             .end_ns = s.IntOr(kEnd, s.Int(kStart)) + ctx.base_ns,
                             .pid = thread ? PidOf(s.Int(kGlobalTid)) : model::kNoId,
                             .tid = thread ? TidOf(s.Int(kGlobalTid)) : model::kNoId,
                             .name = name});
    return Ok();
  });
}

}  // namespace plasmient::ingest::nsys
