// TARGET_INFO_GPU (+ TARGET_INFO_CUDA_DEVICE) -> model device descriptions.
//
// Kernels name their GPU by the CUDA device id the process saw (after CUDA_VISIBLE_DEVICES);
// TARGET_INFO_GPU numbers GPUs its own way. The map between them is, by preference:
// TARGET_INFO_CUDA_DEVICE (cudaId -> gpuId), TARGET_INFO_CUDA_CONTEXT_INFO (deviceId -> hwId),
// else TARGET_INFO_GPU.id is taken as the CUDA id. A process-local id that two processes map
// to different GPUs keeps the first (the model has one device table per trace).
#include <map>
#include <set>

#include "ingest/nsys_sqlite/nsys_parse_context.h"

namespace plasmient::ingest::nsys {
namespace {

using model::DeviceInfo;
using model::Dq;

enum Col { kId, kName, kSmCount, kCcMajor, kCcMinor, kTotalMemory, kBandwidth, kClock };

// Clock columns are Hz in nsys; a value this small is the kHz CUDA device properties report.
constexpr std::int64_t kSmallestHz = 100'000'000;

std::int64_t ClockMhz(std::int64_t clock) {
  if (clock <= 0) return 0;
  return clock >= kSmallestHz ? clock / 1'000'000 : clock / 1'000;
}

Result<std::map<std::int64_t, DeviceInfo>> ReadGpus(ParseContext& ctx) {
  constexpr std::string_view table = kGpuInfoTable;
  const auto& schema = ctx.schema;
  auto& dq = ctx.quality();
  std::string sql =
      "SELECT " + schema.ColumnOrNull(table, {"id"}, dq) + ", " + schema.ColumnOrNull(table, {"name"}, dq) +
      ", " + schema.ColumnOrNull(table, {"smCount", "multiProcessorCount", "numMultiprocessors"}, dq) + ", " +
      schema.ColumnOrNull(table, {"computeMajor", "computeCapabilityMajor"}, dq) + ", " +
      schema.ColumnOrNull(table, {"computeMinor", "computeCapabilityMinor"}, dq) + ", " +
      schema.ColumnOrNull(table, {"totalMemory"}, dq) + ", " +
      schema.ColumnOrNull(table, {"memoryBandwidth"}, dq) + ", " +
      schema.ColumnOrNull(table, {"clockRate", "clock"}, dq) + " FROM " + QuoteIdentifier(table);
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::map<std::int64_t, DeviceInfo> gpus;
  while (true) {
    auto more = stmt->Step();
    if (!more) return std::unexpected(std::move(more.error()));
    if (!*more) break;
    const Statement& s = *stmt;
    DeviceInfo d;
    d.id = static_cast<std::int32_t>(s.IntOr(kId, static_cast<std::int64_t>(gpus.size())));
    d.name = s.Text(kName);
    d.sm_count = static_cast<std::int32_t>(s.IntOr(kSmCount, 0));
    d.cc_major = static_cast<std::int32_t>(s.IntOr(kCcMajor, 0));
    d.cc_minor = static_cast<std::int32_t>(s.IntOr(kCcMinor, 0));
    d.total_memory_bytes = s.IntOr(kTotalMemory, 0);
    d.memory_bandwidth_bytes_per_s = s.IntOr(kBandwidth, 0);
    d.sm_clock_mhz = ClockMhz(s.IntOr(kClock, 0));
    gpus.emplace(d.id, std::move(d));
  }
  return gpus;
}

}  // namespace

Status ParseDevices(ParseContext& ctx) {
  const auto& schema = ctx.schema;
  if (!schema.HasTable(kGpuInfoTable)) {
    ctx.quality().Add(Dq::kMissingTable);
    return Ok();
  }
  auto gpus = ReadGpus(ctx);
  if (!gpus) return std::unexpected(std::move(gpus.error()));
  std::string sql;
  std::string_view map_table;
  if (schema.HasColumn(kCudaDeviceTable, "cudaId") && schema.HasColumn(kCudaDeviceTable, "gpuId")) {
    map_table = kCudaDeviceTable;
    std::string sm = schema.HasColumn(map_table, "numMultiprocessors") ? "numMultiprocessors" : "NULL";
    sql = "SELECT cudaId, gpuId, " + sm + " FROM " + QuoteIdentifier(map_table);
  } else if (schema.HasColumn(kCudaContextTable, "deviceId") && schema.HasColumn(kCudaContextTable, "hwId")) {
    map_table = kCudaContextTable;
    sql = "SELECT deviceId, hwId, NULL FROM " + QuoteIdentifier(map_table);
  } else {
    for (auto& [id, device] : *gpus) ctx.builder.AddDevice(device);
    return Ok();
  }
  auto stmt = ctx.db.Prepare(sql, std::string(map_table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::set<std::int64_t> seen;
  while (true) {
    auto more = stmt->Step();
    if (!more) return std::unexpected(std::move(more.error()));
    if (!*more) break;
    if (stmt->IsNull(0) || !seen.insert(stmt->Int(0)).second) continue;
    if (!stmt->IsNull(1))
      ctx.cuda_device_of_gpu.try_emplace(stmt->Int(1), static_cast<std::int32_t>(stmt->Int(0)));
    auto it = gpus->find(stmt->IntOr(1, -1));
    DeviceInfo device = it != gpus->end() ? it->second : DeviceInfo{};
    device.id = static_cast<std::int32_t>(stmt->Int(0));
    if (device.sm_count == 0) device.sm_count = static_cast<std::int32_t>(stmt->IntOr(2, 0));
    ctx.builder.AddDevice(std::move(device));
  }
  return Ok();
}

}  // namespace plasmient::ingest::nsys
