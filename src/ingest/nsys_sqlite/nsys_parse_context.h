// What every nsys table parser shares: the open file, its schema, the string lookups, the one
// writer of the model, the session's epoch offset and the progress callback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time_units.h"
#include "ingest/nsys_sqlite/nsys_schema.h"
#include "ingest/nsys_sqlite/nsys_strings.h"
#include "ingest/nsys_sqlite/sqlite_db.h"
#include "model/trace_builder.h"

namespace plasmient::ingest::nsys {

// Called with the table being read and the rows read from it so far.
using ProgressFn = std::function<void(std::string_view table, std::int64_t rows)>;

inline constexpr std::int64_t kProgressEveryRows = 1 << 16;

struct ParseContext {
  const Db& db;
  const NsysSchema& schema;
  StringIds& strings;
  model::TraceBuilder& builder;
  TimeNs base_ns = 0;  // session start (UTC epoch ns), added to every timestamp
  int schema_major = -1;
  const ProgressFn* progress = nullptr;
  std::int64_t rows = 0;  // rows read, all tables
  // TARGET_INFO_GPU's id of each GPU the process used -> its CUDA device id, when the export
  // says (ParseDevices); empty when it does not, and the two numberings are taken as one.
  std::map<std::int64_t, std::int32_t> cuda_device_of_gpu;

  model::DataQuality& quality() { return builder.quality(); }
  void CountRow(std::string_view table, std::int64_t table_rows) {
    ++rows;
    if (progress && *progress && table_rows % kProgressEveryRows == 0) (*progress)(table, table_rows);
  }
};

// nsys serializes a thread as (vm << 56 | pid << 24 | tid); a process as the same with tid 0.
inline std::int64_t PidOf(std::int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
inline std::int64_t TidOf(std::int64_t global_id) { return global_id & 0xFFFFFF; }

// " ORDER BY start", or "" when `table` is already stored in start order: nsys writes its
// tables that way, and a check that reads one column costs far less than SQLite's sort.
[[nodiscard]] Result<std::string> OrderByStart(const ParseContext& ctx, std::string_view table);

// One query over one table, ordered by start (its column 0), tagged for the row handler.
struct OrderedSource {
  Statement stmt;
  int tag = 0;
  std::string_view table;
  std::int64_t rows = 0;
  bool live = false;
};

// Steps every source and hands rows to `handle(const Statement&, const OrderedSource&)` in one
// merged start order, so several tables fill one model table already sorted by time.
template <typename Handle>
Status MergeByStart(ParseContext& ctx, std::vector<OrderedSource>& sources, Handle&& handle) {
  for (auto& s : sources) {
    auto row = s.stmt.Step();
    if (!row) return std::unexpected(std::move(row.error()));
    s.live = *row;
  }
  while (true) {
    OrderedSource* next = nullptr;
    for (auto& s : sources) {
      if (s.live && (next == nullptr || s.stmt.IntOr(0, 0) < next->stmt.IntOr(0, 0))) next = &s;
    }
    if (next == nullptr) break;
    PLASMIENT_TRY(handle(next->stmt, *next));
    ctx.CountRow(next->table, ++next->rows);
    auto row = next->stmt.Step();
    if (!row) return std::unexpected(std::move(row.error()));
    next->live = *row;
  }
  for (auto& s : sources) {
    if (ctx.progress && *ctx.progress) (*ctx.progress)(s.table, s.rows);
  }
  return Ok();
}

// Kernels, memcpys and memsets, merged by start into the GPU table.
[[nodiscard]] Status ParseGpuActivities(ParseContext& ctx);
// Runtime (and driver) API calls, with older exports' duplicated rows removed.
[[nodiscard]] Status ParseApiCalls(ParseContext& ctx);
// NVTX ranges as annotations, PyTorch emit_nvtx ranges as ops.
[[nodiscard]] Status ParseNvtx(ParseContext& ctx);
// PROFILER_OVERHEAD (the profiler's own work: CUPTI instrumentation, buffer flushes) as the
// trace's profiler overhead.
[[nodiscard]] Status ParseProfilerOverhead(ParseContext& ctx);
// TARGET_INFO_GPU (+ TARGET_INFO_CUDA_DEVICE) as device descriptions.
[[nodiscard]] Status ParseDevices(ParseContext& ctx);
// GPU_METRICS (GPU metrics sampling) as the device tier's samples; after ParseDevices.
[[nodiscard]] Status ParseGpuMetrics(ParseContext& ctx);

}  // namespace plasmient::ingest::nsys
