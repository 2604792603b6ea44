// CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET -> model GPU activities.
#include <array>
#include <string>

#include "ingest/nsys_sqlite/nsys_parse_context.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;
using model::GpuKind;

// Every query selects the same columns, NULL where a table has no such thing.
enum Col {
  kStart,
  kEnd,
  kDevice,
  kStream,
  kCorrelation,
  kGlobalPid,
  kNameId,
  kBytes,
  kCopyKind,
  kSrcKind,
  kDstKind
};

// CUPTI's memcpy kinds as nsys numbers them (ENUM_CUDA_MEMCPY_OPER), in the words Kineto uses.
std::string_view CopyKindName(std::int64_t kind) {
  static constexpr std::array<std::string_view, 14> kNames = {
      "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
      "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD"};  // 11-13: unified-memory migrations
  return kind >= 0 && kind < static_cast<std::int64_t>(kNames.size()) ? kNames[kind] : "Unknown";
}

// ENUM_CUDA_MEM_KIND.
std::string_view MemKindName(std::int64_t kind) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static"};
  return kind >= 0 && kind < static_cast<std::int64_t>(kNames.size()) ? kNames[kind] : "Unknown";
}

// "COALESCE(a, b)" over the name columns `table` has, else NULL (counted).
std::string NameExpression(ParseContext& ctx, std::string_view table) {
  std::string present;
  for (auto column : {"demangledName", "shortName", "mangledName", "name"}) {
    if (!ctx.schema.HasColumn(table, column)) continue;
    if (!present.empty()) present += ", ";
    present += QuoteIdentifier(column);
  }
  if (present.empty()) {
    ctx.quality().Add(Dq::kMissingColumn);
    return "NULL";
  }
  return "COALESCE(" + present + ", NULL)";
}

Result<std::optional<OrderedSource>> OpenSource(ParseContext& ctx, std::string_view table, GpuKind kind) {
  const auto& schema = ctx.schema;
  if (!schema.HasTable(table)) return std::nullopt;
  if (!schema.HasColumn(table, "start") || !schema.HasColumn(table, "end")) {
    ctx.quality().Add(Dq::kMissingColumn);
    return std::nullopt;
  }
  auto& dq = ctx.quality();
  auto col = [&](std::initializer_list<std::string_view> aliases) {
    return schema.ColumnOrNull(table, aliases, dq);
  };
  std::string sql = "SELECT start, \"end\", " + col({"deviceId"}) + ", " + col({"streamId"}) + ", " +
                    col({"correlationId"}) + ", " + col({"globalPid"}) + ", ";
  switch (kind) {
    case GpuKind::kKernel:
      sql += NameExpression(ctx, table) + ", NULL, NULL, NULL, NULL";
      break;
    case GpuKind::kMemcpy:
      sql += "NULL, " + col({"bytes"}) + ", " + col({"copyKind"}) + ", " + col({"srcKind"}) + ", " +
             col({"dstKind"});
      break;
    case GpuKind::kMemset:
      sql += "NULL, " + col({"bytes"}) + ", NULL, " + col({"memKind"}) + ", NULL";
      break;
  }
  auto order = OrderByStart(ctx, table);
  if (!order) return std::unexpected(std::move(order.error()));
  sql += " FROM " + QuoteIdentifier(table) + *order;
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  return OrderedSource{.stmt = std::move(*stmt), .tag = static_cast<int>(kind), .table = table};
}

}  // namespace

Status ParseGpuActivities(ParseContext& ctx) {
  if (!ctx.schema.HasTable(kKernelTable)) ctx.quality().Add(Dq::kMissingTable);
  std::vector<OrderedSource> sources;
  for (auto [table, kind] :
       {std::pair{kKernelTable, GpuKind::kKernel}, std::pair{kMemcpyTable, GpuKind::kMemcpy},
        std::pair{kMemsetTable, GpuKind::kMemset}}) {
    auto source = OpenSource(ctx, table, kind);
    if (!source) return std::unexpected(std::move(source.error()));
    if (*source) sources.push_back(std::move(**source));
  }
  std::string name;
  return MergeByStart(ctx, sources, [&](const Statement& s, const OrderedSource& source) -> Status {
    model::GpuRow row;
    row.kind = static_cast<GpuKind>(source.tag);
    row.start_ns = s.Int(kStart) + ctx.base_ns;
    row.end_ns = s.IntOr(kEnd, s.Int(kStart)) + ctx.base_ns;
    row.device = static_cast<std::int32_t>(s.IntOr(kDevice, 0));
    row.stream = static_cast<std::int32_t>(s.IntOr(kStream, 0));
    row.correlation = s.IntOr(kCorrelation, model::kNoId);
    row.pid = s.IsNull(kGlobalPid) ? model::kNoId : PidOf(s.Int(kGlobalPid));
    row.bytes = s.IntOr(kBytes, 0);
    switch (row.kind) {
      case GpuKind::kKernel: {
        auto text = ctx.strings.GetColumn(s, kNameId);
        if (!text) return std::unexpected(std::move(text.error()));
        row.name = *text;
        break;
      }
      case GpuKind::kMemcpy:
        name = "Memcpy ";
        name += CopyKindName(s.IntOr(kCopyKind, 0));
        if (!s.IsNull(kSrcKind) && !s.IsNull(kDstKind)) {
          name += " (";
          name += MemKindName(s.Int(kSrcKind));
          name += " -> ";
          name += MemKindName(s.Int(kDstKind));
          name += ")";
        }
        row.name = name;
        break;
      case GpuKind::kMemset:
        name = "Memset (";
        name += s.IsNull(kSrcKind) ? "Device" : MemKindName(s.Int(kSrcKind));
        name += ")";
        row.name = name;
        break;
    }
    ctx.builder.AddGpu(row);
    return Ok();
  });
}

}  // namespace plasmient::ingest::nsys
