// Export and capture metadata of an Nsight Systems SQLite file: versions, the session's UTC
// start, the profiled process's environment (for the rank), the host name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "ingest/nsys_sqlite/nsys_schema.h"
#include "ingest/nsys_sqlite/sqlite_db.h"
#include "model/data_quality.h"

namespace plasmient::ingest::nsys {

struct NsysExportMeta {
  std::string meta_table;       // "META_DATA_EXPORT" (3.x), "EXPORT_META_DATA" (2.x), "" when absent
  std::string product_version;  // e.g. "2024.5.1.113"
  std::string schema_version;   // e.g. "3.13.2"
  int schema_major = -1;        // -1 when unknown
  std::string hostname;         // the capture's device name, when recorded
  std::int64_t session_start_utc_ns = 0;  // 0 when unknown: timestamps stay session-relative
  // Environment variables of the profiled processes, as recorded at capture ("KEY", "VALUE").
  std::vector<std::pair<std::string, std::string>> environment;
};

// Reads everything above; absent tables are counted in `quality`, never fatal.
[[nodiscard]] Result<NsysExportMeta> ReadExportMeta(const Db& db, const NsysSchema& schema,
                                                    model::DataQuality& quality);

// The rank and world size the launcher gave the process (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,
// SLURM_PROCID, ...), -1 when none is recorded.
std::int64_t RankFromEnvironment(const NsysExportMeta& meta);
std::int64_t WorldSizeFromEnvironment(const NsysExportMeta& meta);

}  // namespace plasmient::ingest::nsys
