// Which Nsight Systems tables and columns a file has. Exports vary by version (tables are
// created lazily, columns come and go), so every query is built from what is really there.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ingest/nsys_sqlite/sqlite_db.h"
#include "model/data_quality.h"

namespace plasmient::ingest::nsys {

inline constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr std::string_view kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr std::string_view kDriverTable = "CUPTI_ACTIVITY_KIND_DRIVER";
inline constexpr std::string_view kNvtxTable = "NVTX_EVENTS";
inline constexpr std::string_view kProfilerOverheadTable = "PROFILER_OVERHEAD";
inline constexpr std::string_view kStringsTable = "StringIds";
inline constexpr std::string_view kGpuInfoTable = "TARGET_INFO_GPU";
inline constexpr std::string_view kCudaDeviceTable = "TARGET_INFO_CUDA_DEVICE";
inline constexpr std::string_view kCudaContextTable = "TARGET_INFO_CUDA_CONTEXT_INFO";
inline constexpr std::string_view kSessionStartTable = "TARGET_INFO_SESSION_START_TIME";
inline constexpr std::string_view kGpuMetricsTable = "GPU_METRICS";
inline constexpr std::string_view kGpuMetricNamesTable = "TARGET_INFO_GPU_METRICS";
inline constexpr std::string_view kExportMetaV3 = "META_DATA_EXPORT";  // schema 3.x
inline constexpr std::string_view kExportMetaV2 = "EXPORT_META_DATA";  // schema 2.x
inline constexpr std::string_view kCaptureMetaV3 = "META_DATA_CAPTURE";
inline constexpr std::string_view kCaptureMetaV2 = "CAPTURE_META_DATA";

class NsysSchema {
 public:
  [[nodiscard]] static Result<NsysSchema> Load(const Db& db);

  bool HasTable(std::string_view table) const { return tables_.contains(std::string(table)); }
  bool HasColumn(std::string_view table, std::string_view column) const;
  // The first of `aliases` that `table` has, or "" when it has none of them.
  std::string_view PickColumn(std::string_view table, std::initializer_list<std::string_view> aliases) const;
  // The first alias present, quoted for SQL, else "NULL" with one kMissingColumn counted.
  std::string ColumnOrNull(std::string_view table, std::initializer_list<std::string_view> aliases,
                           model::DataQuality& quality) const;
  std::size_t table_count() const { return tables_.size(); }
  // True when at least one table is one that Nsight Systems writes.
  bool LooksLikeNsys() const;

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> tables_;
};

}  // namespace plasmient::ingest::nsys
