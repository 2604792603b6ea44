// GPU_METRICS (+ TARGET_INFO_GPU_METRICS) -> the device tier's samples (model::kSmActiveMetric,
// kTensorActiveMetric, kDramActiveMetric), the rows the agent's GPM samples fill.
//
// What the export holds (docs/nsys.md, "GPU metrics", says where each fact comes from):
// - GPU_METRICS(timestamp, typeId, metricId, value): one row per metric per sample, timestamps
//   in ns on the session clock like every other table; newer exports add rawTimestamp and store
//   the value as an integer. Nsight Systems' SQLite schema reference.
// - TARGET_INFO_GPU_METRICS(typeId, sourceId, typeName, metricId, metricName): the names.
//   metricId is "not assumed to be stable" (the schema's words), so a sample's name is looked up
//   by (typeId, metricId), or by metricId alone when the table has no typeId column.
// - typeId names the sampled GPU in its low byte (public readers of these exports mask it with
//   0xFF); which numbering that byte uses is not documented. It is read as TARGET_INFO_GPU's id
//   when the export maps those ids to CUDA devices (ParseDevices), else as the CUDA device id:
//   where no map exists the two are taken as one, as ParseDevices does.
// - Names carry their unit in brackets. Read: "SMs Active", "Tensor Active", and "DRAM Read /
//   Write Bandwidth" (or "VRAM ...", on boards whose memory the user guide calls VRAM), each
//   "[Throughput %]". The guide defines the DRAM pair as the share of cycles the DRAM interface
//   was reading, and writing: their sum is the interface's activity, the agent's DRAM figure.
//   Every other name (Turing's "Tensor Active / FP16 Active" among them: it mixes FP16 pipes
//   in) is counted as unread, never mapped by likeness.
#include <map>

#include "ingest/nsys_sqlite/nsys_parse_context.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;

enum class Activity : std::uint8_t { kSm, kTensor, kDramRead, kDramWrite };

struct KnownMetric {
  std::string_view name;
  Activity activity;
};

constexpr KnownMetric kKnownMetrics[] = {
    {"SMs Active [Throughput %]", Activity::kSm},
    {"Tensor Active [Throughput %]", Activity::kTensor},
    {"DRAM Read Bandwidth [Throughput %]", Activity::kDramRead},
    {"VRAM Read Bandwidth [Throughput %]", Activity::kDramRead},
    {"DRAM Write Bandwidth [Throughput %]", Activity::kDramWrite},
    {"VRAM Write Bandwidth [Throughput %]", Activity::kDramWrite},
};

// typeId when the names table has none: every type shares its metric ids.
constexpr std::int64_t kAnyType = -1;
constexpr std::int64_t kGpuOfType = 0xFF;

using MetricKey = std::pair<std::int64_t, std::int64_t>;  // (typeId, metricId)

Result<std::map<MetricKey, Activity>> ReadMetricNames(ParseContext& ctx) {
  constexpr std::string_view table = kGpuMetricNamesTable;
  std::map<MetricKey, Activity> known;
  if (!ctx.schema.HasTable(table)) {
    ctx.quality().Add(Dq::kMissingTable);
    return known;
  }
  bool typed = ctx.schema.HasColumn(table, "typeId");
  std::string sql = "SELECT " + std::string(typed ? "typeId" : "NULL") + ", " +
                    ctx.schema.ColumnOrNull(table, {"metricId"}, ctx.quality()) + ", " +
                    ctx.schema.ColumnOrNull(table, {"metricName"}, ctx.quality()) + " FROM " +
                    QuoteIdentifier(table);
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  while (true) {
    auto more = stmt->Step();
    if (!more) return std::unexpected(std::move(more.error()));
    if (!*more) break;
    if (stmt->IsNull(1)) continue;
    std::string_view name = stmt->Text(2);
    for (const KnownMetric& m : kKnownMetrics) {
      if (name == m.name) known.emplace(MetricKey{stmt->IntOr(0, kAnyType), stmt->Int(1)}, m.activity);
    }
  }
  return known;
}

// A DRAM sample is read + write at one instant: each half waits here for the other.
struct DramHalves {
  TimeNs read_ns = kNoTime, write_ns = kNoTime;
  double read = 0, write = 0;
};

class SampleSink {
 public:
  explicit SampleSink(ParseContext& ctx) : ctx_(ctx) {}

  void Add(TimeNs ts_ns, std::int32_t device, Activity activity, double value) {
    switch (activity) {
      case Activity::kSm:
        return Emit(ts_ns, device, model::kSmActiveMetric, value);
      case Activity::kTensor:
        return Emit(ts_ns, device, model::kTensorActiveMetric, value);
      case Activity::kDramRead:
      case Activity::kDramWrite:
        return AddDram(ts_ns, device, activity == Activity::kDramRead, value);
    }
  }

  // Halves still waiting at the end never met their pair.
  void Finish() {
    for (const auto& [device, h] : dram_) {
      ctx_.quality().Add(Dq::kGpuMetricDramUnpaired, (h.read_ns != kNoTime) + (h.write_ns != kNoTime));
    }
  }

 private:
  void Emit(TimeNs ts_ns, std::int32_t device, std::string_view metric, double value) {
    ctx_.builder.AddSample({.ts_ns = ts_ns, .device = device, .metric = metric, .value = value});
  }

  void AddDram(TimeNs ts_ns, std::int32_t device, bool read, double value) {
    DramHalves& h = dram_[device];
    TimeNs& mine = read ? h.read_ns : h.write_ns;
    TimeNs& other = read ? h.write_ns : h.read_ns;
    if (other == ts_ns) {
      Emit(ts_ns, device, model::kDramActiveMetric, value + (read ? h.write : h.read));
      other = kNoTime;
      return;
    }
    if (mine != kNoTime) ctx_.quality().Add(Dq::kGpuMetricDramUnpaired);  // its pair never came
    mine = ts_ns;
    (read ? h.read : h.write) = value;
  }

  ParseContext& ctx_;
  std::map<std::int32_t, DramHalves> dram_;
};

enum Col { kTimestamp, kType, kMetric, kValue };

}  // namespace

Status ParseGpuMetrics(ParseContext& ctx) {
  constexpr std::string_view table = kGpuMetricsTable;
  if (!ctx.schema.HasTable(table)) return Ok();  // written only when GPU metrics were sampled
  auto known = ReadMetricNames(ctx);
  if (!known) return std::unexpected(std::move(known.error()));
  auto& dq = ctx.quality();
  std::string sql = "SELECT " + ctx.schema.ColumnOrNull(table, {"timestamp"}, dq) + ", " +
                    ctx.schema.ColumnOrNull(table, {"typeId"}, dq) + ", " +
                    ctx.schema.ColumnOrNull(table, {"metricId"}, dq) + ", " +
                    ctx.schema.ColumnOrNull(table, {"value"}, dq) + " FROM " + QuoteIdentifier(table);
  auto stmt = ctx.db.Prepare(sql, std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  bool typed_names = known->empty() || known->begin()->first.first != kAnyType;
  SampleSink sink(ctx);
  std::int64_t rows = 0;
  while (true) {
    auto more = stmt->Step();
    if (!more) return std::unexpected(std::move(more.error()));
    if (!*more) break;
    ctx.CountRow(table, ++rows);
    const Statement& s = *stmt;
    std::int64_t type = s.IntOr(kType, 0);
    std::int64_t gpu = type & kGpuOfType;
    std::int32_t device = static_cast<std::int32_t>(gpu);
    if (!ctx.cuda_device_of_gpu.empty()) {
      auto cuda = ctx.cuda_device_of_gpu.find(gpu);
      if (cuda == ctx.cuda_device_of_gpu.end()) {
        dq.Add(Dq::kGpuMetricOtherGpu);
        continue;
      }
      device = cuda->second;
    }
    auto it = known->find({typed_names ? type : kAnyType, s.IntOr(kMetric, -1)});
    TimeNs ts_ns = 0;
    if (it == known->end() || s.IsNull(kTimestamp) || s.IsNull(kValue) ||
        __builtin_add_overflow(s.Int(kTimestamp), ctx.base_ns, &ts_ns)) {
      dq.Add(Dq::kGpuMetricUnread);
      continue;
    }
    sink.Add(ts_ns, device, it->second, s.Double(kValue));
  }
  sink.Finish();
  if (ctx.progress && *ctx.progress) (*ctx.progress)(table, rows);
  return Ok();
}

}  // namespace plasmient::ingest::nsys
