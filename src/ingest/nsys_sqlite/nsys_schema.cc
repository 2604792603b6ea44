#include "ingest/nsys_sqlite/nsys_schema.h"

#include <algorithm>

namespace plasmient::ingest::nsys {

namespace {
constexpr std::string_view kNsysTables[] = {
    kKernelTable,  kMemcpyTable,     kMemsetTable,        kRuntimeTable,      kDriverTable,
    kNvtxTable,    kStringsTable,    kGpuInfoTable,       kSessionStartTable, kExportMetaV3,
    kExportMetaV2, kGpuMetricsTable, kGpuMetricNamesTable};
}  // namespace

Result<NsysSchema> NsysSchema::Load(const Db& db) {
  NsysSchema schema;
  auto views = db.ViewNames();
  if (!views) return std::unexpected(std::move(views.error()));
  for (const auto& view : *views) {
    if (std::ranges::find(kNsysTables, view) != std::end(kNsysTables)) {
      return Fail("{}: {} is a view where Nsight Systems writes a table: refused", db.path(), view);
    }
  }
  auto names = db.TableNames();
  if (!names) return std::unexpected(std::move(names.error()));
  for (const auto& name : *names) {
    auto columns = db.ColumnNames(name);
    if (!columns) return std::unexpected(std::move(columns.error()));
    schema.tables_.emplace(name, std::move(*columns));
  }
  return schema;
}

bool NsysSchema::HasColumn(std::string_view table, std::string_view column) const {
  auto it = tables_.find(table);
  if (it == tables_.end()) return false;
  return std::ranges::find(it->second, column) != it->second.end();
}

std::string_view NsysSchema::PickColumn(std::string_view table,
                                        std::initializer_list<std::string_view> aliases) const {
  for (auto alias : aliases) {
    if (HasColumn(table, alias)) return alias;
  }
  return {};
}

std::string NsysSchema::ColumnOrNull(std::string_view table, std::initializer_list<std::string_view> aliases,
                                     model::DataQuality& quality) const {
  auto column = PickColumn(table, aliases);
  if (column.empty()) {
    quality.Add(model::Dq::kMissingColumn);
    return "NULL";
  }
  return QuoteIdentifier(column);
}

bool NsysSchema::LooksLikeNsys() const {
  return std::ranges::any_of(kNsysTables, [&](std::string_view table) { return HasTable(table); });
}

}  // namespace plasmient::ingest::nsys
