#include "model/trace_builder.h"

#include <algorithm>

#include "base/bounded_name.h"
#include "model/module_hierarchy.h"

namespace plasmient::model {
namespace {

// A name as the model keeps it (base/bounded_name.h): bounded and valid UTF-8. Only a name not
// seen before is checked, so a trace's millions of rows pay one lookup each, as before.
StringId InternName(StringPool& pool, std::string_view name) {
  if (StringId id = pool.Find(name); !id.empty() || name.empty()) return id;
  return IsBoundedName(name) ? pool.Intern(name) : pool.Intern(BoundName(name));
}

// A Module Hierarchy argument as the model keeps it (model/module_hierarchy.h), checked once per
// distinct text like the names.
StringId InternModuleHierarchy(StringPool& pool, std::string_view text) {
  if (StringId id = pool.Find(text); !id.empty() || text.empty()) return id;
  if (IsBoundedName(text)) return pool.Intern(text);
  std::string bounded = BoundModuleHierarchy(text);
  return bounded.empty() ? StringId{} : pool.Intern(bounded);
}

template <typename Table>
std::int32_t NextRow(const Table& t) {
  return static_cast<std::int32_t>(t.size());
}

TimeNs ClampEnd(TimeNs start, TimeNs end) { return std::max(start, end); }

}  // namespace

std::int32_t TraceBuilder::AddGpu(const GpuRow& r) {
  auto& t = trace_.gpu;
  std::int32_t row = NextRow(t);
  t.start_ns.push_back(r.start_ns);
  t.end_ns.push_back(ClampEnd(r.start_ns, r.end_ns));
  t.device.push_back(r.device);
  t.stream.push_back(r.stream);
  t.pid.push_back(r.pid);
  t.name.push_back(InternName(trace_.strings, r.name));
  t.kind.push_back(r.kind);
  t.correlation.push_back(r.correlation);
  t.external_id.push_back(r.external_id);
  t.bytes.push_back(r.bytes);
  return row;
}

std::int32_t TraceBuilder::AddApi(const ApiRow& r) {
  auto& t = trace_.api;
  std::int32_t row = NextRow(t);
  t.start_ns.push_back(r.start_ns);
  t.end_ns.push_back(ClampEnd(r.start_ns, r.end_ns));
  t.pid.push_back(r.pid);
  t.tid.push_back(r.tid);
  t.name.push_back(InternName(trace_.strings, r.name));
  t.correlation.push_back(r.correlation);
  t.external_id.push_back(r.external_id);
  return row;
}

std::int32_t TraceBuilder::AddCpuOp(const CpuOpRow& r) {
  auto& t = trace_.cpu;
  std::int32_t row = NextRow(t);
  auto& s = trace_.strings;
  t.start_ns.push_back(r.start_ns);
  t.end_ns.push_back(ClampEnd(r.start_ns, r.end_ns));
  t.pid.push_back(r.pid);
  t.tid.push_back(r.tid);
  std::string_view name = r.name;
  CpuOpKind kind = r.kind;
  if (kind != CpuOpKind::kOp && name.starts_with(kModuleRangePrefix)) {
    name.remove_prefix(kModuleRangePrefix.size());
    kind = CpuOpKind::kModule;
  }
  t.name.push_back(InternName(s, name));
  t.kind.push_back(kind);
  t.external_id.push_back(r.external_id);
  t.step.push_back(r.step);
  t.input_dims.push_back(s.Intern(r.input_dims));
  t.input_types.push_back(s.Intern(r.input_types));
  t.concrete_inputs.push_back(s.Intern(r.concrete_inputs));
  t.sequence.push_back(r.sequence);
  t.forward_thread.push_back(r.forward_thread);
  t.module_hierarchy.push_back(InternModuleHierarchy(s, r.module_hierarchy));
  return row;
}

std::int32_t TraceBuilder::AddCollective(const CollectiveRow& r) {
  auto& t = trace_.collectives;
  std::int32_t row = NextRow(t);
  auto& s = trace_.strings;
  t.cpu_op.push_back(r.cpu_op);
  t.gpu.push_back(r.gpu);
  t.name.push_back(InternName(s, r.name));
  t.in_nelems.push_back(r.in_nelems);
  t.out_nelems.push_back(r.out_nelems);
  t.dtype.push_back(s.Intern(r.dtype));
  t.group_size.push_back(r.group_size);
  t.pg_name.push_back(InternName(s, r.pg_name));
  t.pg_ranks.push_back(s.Intern(r.pg_ranks));
  t.seq.push_back(r.seq);
  t.bytes.push_back(r.bytes);
  t.group_rank.push_back(r.group_rank);
  t.peer.push_back(r.peer);
  return row;
}

bool IsCompileOverhead(std::string_view name) {
  // CUPTI's overhead kinds as Kineto names them ("Driver Compiler"; newer CUPTI versions' "Lazy
  // Function Loading", "Runtime Triggered Module Loading").
  for (std::string_view word : {"Driver Compiler", "Module Loading", "Function Loading"}) {
    if (name.find(word) != std::string_view::npos) return true;
  }
  return false;
}

std::int32_t TraceBuilder::AddOverhead(const OverheadRow& r) {
  auto& t = trace_.overhead;
  std::int32_t row = NextRow(t);
  t.start_ns.push_back(r.start_ns);
  t.end_ns.push_back(ClampEnd(r.start_ns, r.end_ns));
  t.pid.push_back(r.pid);
  t.tid.push_back(r.tid);
  t.name.push_back(InternName(trace_.strings, r.name));
  return row;
}

void TraceBuilder::AddSample(const SampleRow& r) {
  auto& t = trace_.samples;
  t.ts_ns.push_back(r.ts_ns);
  t.device.push_back(r.device);
  t.metric.push_back(InternName(trace_.strings, r.metric));
  t.value.push_back(r.value);
}

void TraceBuilder::AddDevice(DeviceInfo device) {
  for (auto& d : trace_.devices) {
    if (d.id == device.id) {
      d = std::move(device);
      return;
    }
  }
  trace_.devices.push_back(std::move(device));
}

bool TraceBuilder::ShiftTime(TimeNs offset_ns) {
  std::vector<TimeNs>* columns[] = {
      &trace_.gpu.start_ns,  &trace_.gpu.end_ns,        &trace_.api.start_ns,
      &trace_.api.end_ns,    &trace_.cpu.start_ns,      &trace_.cpu.end_ns,
      &trace_.samples.ts_ns, &trace_.overhead.start_ns, &trace_.overhead.end_ns};
  // Checked first, applied second: a shift that overflows one timestamp moves none.
  TimeNs moved = 0;
  for (const auto* column : columns) {
    for (TimeNs x : *column) {
      if (x != kNoTime && __builtin_add_overflow(x, offset_ns, &moved)) return false;
    }
  }
  for (auto* column : columns) {
    for (TimeNs& x : *column) {
      if (x != kNoTime) x += offset_ns;
    }
  }
  trace_.info.base_time_ns += offset_ns;
  return true;
}

Trace TraceBuilder::Finish() && { return std::move(trace_); }

}  // namespace plasmient::model
