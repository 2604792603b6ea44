// NVTX_EVENTS -> model CPU ops: NVTX is the model layer in an nsys capture.
//
// eventType codes (ENUM_NSYS_EVENT_TYPE, stored in every export): 59 NvtxPushPopRange and
// 60 NvtxStartEndRange (70/71: the same from NVTXT files) are ranges; 34 NvtxMark (65) are
// instants; 33/64 categories, 39 thread names, 72-74 NVTXT meta and 75/76 domain create/destroy
// are naming metadata.
#include "ingest/nsys_sqlite/nsys_parse_context.h"
#include "ingest/nvtx_name_parser.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;

enum Col { kStart, kEnd, kEventType, kText, kTextId, kGlobalTid };

enum class NvtxClass { kRange, kInstant, kMetadata, kUnknown };

NvtxClass Classify(std::int64_t event_type) {
  switch (event_type) {
    case 59:
    case 60:
    case 70:
    case 71:
      return NvtxClass::kRange;
    case 34:
    case 65:
      return NvtxClass::kInstant;
    case 33:
    case 39:
    case 64:
    case 72:
    case 73:
    case 74:
    case 75:
    case 76:
      return NvtxClass::kMetadata;
    default:
      return NvtxClass::kUnknown;
  }
}

}  // namespace

Status ParseNvtx(ParseContext& ctx) {
  const auto& schema = ctx.schema;
  constexpr std::string_view table = kNvtxTable;
  if (!schema.HasTable(table)) return Ok();  // created only when the application used NVTX
  if (!schema.HasColumn(table, "start")) {
    ctx.quality().Add(Dq::kMissingColumn);
    return Ok();
  }
  auto& dq = ctx.quality();
  auto order = OrderByStart(ctx, table);
  if (!order) return std::unexpected(std::move(order.error()));
  std::string sql =
      "SELECT start, " + schema.ColumnOrNull(table, {"end"}, dq) + ", " +
      schema.ColumnOrNull(table, {"eventType"}, dq) + ", " + schema.ColumnOrNull(table, {"text"}, dq) + ", " +
      (schema.HasColumn(table, "textId") ? std::string("textId") : std::string("NULL")) + ", " +
      schema.ColumnOrNull(table, {"globalTid"}, dq) + " FROM " + QuoteIdentifier(table) + *order;
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::vector<OrderedSource> sources;
  sources.push_back(OrderedSource{.stmt = std::move(*stmt), .table = table});
  return MergeByStart(ctx, sources, [&](const Statement& s, const OrderedSource&) -> Status {
    // Without an eventType column every row with an end is taken as a range.
    NvtxClass cls = s.IsNull(kEventType) ? (s.IsNull(kEnd) ? NvtxClass::kInstant : NvtxClass::kRange)
                                         : Classify(s.Int(kEventType));
    if (cls == NvtxClass::kMetadata) return Ok();
    if (cls == NvtxClass::kInstant) {
      ctx.quality().Add(Dq::kInstantEventsSkipped);
      return Ok();
    }
    if (cls == NvtxClass::kUnknown) {
      ctx.quality().Add(Dq::kUnknownCategory);
      return Ok();
    }
    std::string_view text = s.Text(kText);
    if (s.IsNull(kText)) {
      auto registered = ctx.strings.GetColumn(s, kTextId);
      if (!registered) return std::unexpected(std::move(registered.error()));
      text = *registered;
    }
    if (s.IsNull(kEnd)) ctx.quality().Add(Dq::kMissingDuration);  // never closed: kept as an instant
    NvtxRangeMeaning meaning = ParseNvtxRangeName(text);
    model::CpuOpRow row;
    row.start_ns = s.Int(kStart) + ctx.base_ns;
    row.end_ns = s.IntOr(kEnd, s.Int(kStart)) + ctx.base_ns;
    row.pid = s.IsNull(kGlobalTid) ? model::kNoId : PidOf(s.Int(kGlobalTid));
    row.tid = s.IsNull(kGlobalTid) ? model::kNoId : TidOf(s.Int(kGlobalTid));
    row.name = meaning.name;
    row.kind = meaning.kind;
    row.step = meaning.step;
    row.input_dims = meaning.input_dims;
    ctx.builder.AddCpuOp(row);
    return Ok();
  });
}

}  // namespace plasmient::ingest::nsys
