#include "ingest/nsys_sqlite/nsys_meta.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "base/text.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;

// Launchers' rank and size variables, most specific first.
constexpr std::array kRankVariables = {"RANK",        "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                       "PMIX_RANK",   "MV2_COMM_WORLD_RANK",  "PALS_RANKID",
                                       "SLURM_PROCID"};
constexpr std::array kWorldSizeVariables = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                            "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS"};

std::int64_t ParseNonNegative(std::string_view text) {
  auto value = ParseInt(text);
  return value && *value >= 0 ? *value : -1;
}

template <std::size_t N>
std::int64_t FirstVariable(const NsysExportMeta& meta, const std::array<const char*, N>& names) {
  for (const char* name : names) {
    for (const auto& [key, value] : meta.environment) {
      if (key == name) {
        if (auto n = ParseNonNegative(value); n >= 0) return n;
      }
    }
  }
  return -1;
}

// "KEY=\"VALUE\"" or "KEY=VALUE".
std::pair<std::string, std::string> SplitAssignment(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos) return {std::string(text), ""};
  std::string_view value = text.substr(eq + 1);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  return {std::string(text.substr(0, eq)), std::string(value)};
}

Status ReadExportTable(const Db& db, std::string_view table, NsysExportMeta& meta) {
  auto stmt = db.Prepare("SELECT name, value FROM " + QuoteIdentifier(table), std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::string major;
  while (true) {
    auto row = stmt->Step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    std::string_view name = stmt->Text(0), value = stmt->Text(1);
    if (name == "EXPORT_SCHEMA_VERSION") meta.schema_version = value;
    if (name == "EXPORT_SCHEMA_VERSION_MAJOR") major = value;
    if (name == "EXPORT_PRODUCT_VERSION") meta.product_version = value;
  }
  if (major.empty()) major = meta.schema_version.substr(0, meta.schema_version.find('.'));
  meta.schema_major = static_cast<int>(ParseNonNegative(major));
  return Ok();
}

Status ReadCaptureTable(const Db& db, std::string_view table, NsysExportMeta& meta) {
  auto stmt = db.Prepare("SELECT name, value FROM " + QuoteIdentifier(table), std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  while (true) {
    auto row = stmt->Step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    std::string_view name = stmt->Text(0), value = stmt->Text(1);
    if (name.ends_with(":ENVIRONMENT_VARIABLE")) meta.environment.push_back(SplitAssignment(value));
    if (name == "DEVICE_DISPLAY_NAME") meta.hostname = value;
  }
  return Ok();
}

Status ReadSessionStart(const Db& db, const NsysSchema& schema, NsysExportMeta& meta,
                        model::DataQuality& quality) {
  if (!schema.HasTable(kSessionStartTable)) {
    quality.Add(Dq::kMissingTable);
    return Ok();
  }
  if (!schema.HasColumn(kSessionStartTable, "utcEpochNs")) {
    quality.Add(Dq::kMissingColumn);
    return Ok();
  }
  auto stmt = db.Prepare("SELECT utcEpochNs FROM " + QuoteIdentifier(kSessionStartTable) + " LIMIT 1",
                         std::string(kSessionStartTable));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  auto row = stmt->Step();
  if (!row) return std::unexpected(std::move(row.error()));
  if (*row) meta.session_start_utc_ns = stmt->IntOr(0, 0);
  return Ok();
}

}  // namespace

Result<NsysExportMeta> ReadExportMeta(const Db& db, const NsysSchema& schema, model::DataQuality& quality) {
  NsysExportMeta meta;
  for (auto table : {kExportMetaV3, kExportMetaV2}) {
    if (schema.HasColumn(table, "name") && schema.HasColumn(table, "value")) {
      meta.meta_table = table;
      PLASMIENT_TRY(ReadExportTable(db, table, meta));
      break;
    }
  }
  if (meta.meta_table.empty()) quality.Add(Dq::kMissingTable);
  for (auto table : {kCaptureMetaV3, kCaptureMetaV2}) {
    if (schema.HasColumn(table, "name") && schema.HasColumn(table, "value")) {
      PLASMIENT_TRY(ReadCaptureTable(db, table, meta));
      break;
    }
  }
  PLASMIENT_TRY(ReadSessionStart(db, schema, meta, quality));
  return meta;
}

std::int64_t RankFromEnvironment(const NsysExportMeta& meta) { return FirstVariable(meta, kRankVariables); }

std::int64_t WorldSizeFromEnvironment(const NsysExportMeta& meta) {
  return FirstVariable(meta, kWorldSizeVariables);
}

}  // namespace plasmient::ingest::nsys
