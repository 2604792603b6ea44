// TraceBuilder: the one writer of the model. Every ingester (Kineto JSON, Nsight SQLite,
// native) hands it rows, so the same run gives identical tables whatever the format.
#pragma once

#include <string_view>

#include "model/trace.h"

namespace plasmient::model {

struct GpuRow {
  TimeNs start_ns = 0, end_ns = 0;
  std::int32_t device = 0, stream = 0;
  std::int64_t pid = kNoId;
  std::string_view name;
  GpuKind kind = GpuKind::kKernel;
  std::int64_t correlation = kNoId, external_id = kNoId, bytes = 0;
};

struct ApiRow {
  TimeNs start_ns = 0, end_ns = 0;
  std::int64_t pid = 0, tid = 0;
  std::string_view name;
  std::int64_t correlation = kNoId, external_id = kNoId;
};

struct CpuOpRow {
  TimeNs start_ns = 0, end_ns = 0;
  std::int64_t pid = 0, tid = 0;
  std::string_view name;
  CpuOpKind kind = CpuOpKind::kOp;
  std::int64_t external_id = kNoId, step = kNoId;
  std::string_view input_dims, input_types, concrete_inputs;
  std::int64_t sequence = kNoId, forward_thread = kNoId;
  std::string_view module_hierarchy;
};

struct OverheadRow {
  TimeNs start_ns = 0, end_ns = 0;
  std::int64_t pid = kNoId, tid = kNoId;
  std::string_view name;
};

// Whether a profiler's overhead record is the program's own JIT compilation (CUPTI's "Driver
// Compiler" kind, and the module and function loading newer CUPTI versions report as overhead)
// rather than the profiler's work.
bool IsCompileOverhead(std::string_view name);

struct CollectiveRow {
  std::int32_t cpu_op = -1, gpu = -1;
  std::string_view name;
  std::int64_t in_nelems = -1, out_nelems = -1;
  std::string_view dtype;
  std::int32_t group_size = -1;
  std::string_view pg_name, pg_ranks;
  std::int64_t seq = kNoId, bytes = -1;
  std::int32_t group_rank = -1, peer = -1;
};

struct SampleRow {
  TimeNs ts_ns = 0;
  std::int32_t device = 0;
  std::string_view metric;
  double value = 0;
};

class TraceBuilder {
 public:
  TraceBuilder() = default;
  explicit TraceBuilder(TraceInfo info) { trace_.info = std::move(info); }
  // Goes on building a finished trace (rows added after those it holds).
  explicit TraceBuilder(Trace trace) : trace_(std::move(trace)) {}

  // Each returns the new row's index in its table. A CPU range named "nn.Module: X" becomes a
  // kModule row named X, whatever the format called it.
  std::int32_t AddGpu(const GpuRow& row);
  std::int32_t AddApi(const ApiRow& row);
  std::int32_t AddCpuOp(const CpuOpRow& row);
  std::int32_t AddCollective(const CollectiveRow& row);
  std::int32_t AddOverhead(const OverheadRow& row);
  void AddSample(const SampleRow& row);
  void AddDevice(DeviceInfo device);

  TraceInfo& info() { return trace_.info; }
  DataQuality& quality() { return trace_.quality; }
  StringPool& strings() { return trace_.strings; }
  const Trace& trace() const { return trace_; }

  // Adds `offset_ns` to every timestamp (e.g. baseTimeNanoseconds). False, and nothing moved,
  // when a timestamp would leave the 64-bit nanosecond range (garbage or mis-scaled input).
  [[nodiscard]] bool ShiftTime(TimeNs offset_ns);
  Trace Finish() &&;

 private:
  Trace trace_;
};

}  // namespace plasmient::model
