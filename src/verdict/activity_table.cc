#include "verdict/activity_table.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "roofline/device_table.h"
#include "roofline/op_args_parser.h"
#include "verdict/facts.h"

namespace plasmient::verdict {
namespace {

// The leading dimension of the op's first input when its shape says it is the batch.
std::int64_t BatchOf(std::string_view op, std::string_view dims_text, bool attention) {
  roofline::OpDims dims;
  if (!dims.Parse(dims_text) || dims.arg_count() == 0) return -1;
  const std::span<const std::int64_t> x = dims.Shape(0);
  if (attention && x.size() == 4) return x[0];
  if ((op == "aten::linear" || op == "aten::matmul") && x.size() == 3) return x[0];
  return -1;
}

// The batch the pricing op's shapes show (ActivityRow::batch), memoized per op: an op prices
// several kernels. The rest of what the projection reads of the op is in the facts table.
class OpBatches {
 public:
  explicit OpBatches(const model::Trace& t) : t_(t) {}

  std::int64_t Of(model::CpuOpRowId op, bool attention) {
    if (!op.has_value()) return -1;
    auto [it, inserted] = memo_.try_emplace(op, -1);
    const std::size_t row = op.index();
    if (inserted) it->second = BatchOf(t_.Str(t_.cpu.name[row]), t_.Str(t_.cpu.input_dims[row]), attention);
    return it->second;
  }

 private:
  const model::Trace& t_;
  std::unordered_map<model::CpuOpRowId, std::int64_t> memo_;
};

}  // namespace

ActivityTable BuildActivityTable(const RankDetail& d) {
  const model::Trace& t = d.trace;
  const join::Joined& j = d.joined;
  const ActivityFacts& f = d.facts;
  const RankVerdict& v = d.verdict;
  ActivityTable table;
  table.rank = v.rank;
  table.peak_flops_per_s = v.device.peak_flops_per_s;
  table.bandwidth_bytes_per_s = v.device.memory_bandwidth_bytes_per_s;
  if (auto spec = roofline::FindDeviceByKey(v.device.key)) table.memory_bytes = spec->spec->memory_bytes;
  table.graph_launches = static_cast<double>(v.evidence.graph_launches);
  table.steps = static_cast<std::int64_t>(v.steps.size());
  table.current = v.run;

  OpBatches batches(t);
  std::unordered_map<std::uint32_t, std::int32_t> name_index;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!f.kept[i]) continue;
    ActivityRow r;
    r.start_ns = t.gpu.start_ns[i];
    r.end_ns = t.gpu.end_ns[i];
    r.launch_ns = join::LaunchTime(t, j, i);
    r.stream = t.gpu.stream[i];
    r.cls = f.cls[i];
    r.flops = f.flops[i];
    r.bytes = f.bytes[i];
    // The peak of its dtype, as the verdict placed it on the roofline: the pipe that runs it.
    r.peak_flops_per_s = f.peak_flops_per_s[i];
    r.heavy = f.heavy_op[i];
    r.backward = f.backward[i];
    r.step = j.step[i];
    r.loss = f.loss[i];
    auto [name, added] =
        name_index.try_emplace(t.gpu.name[i].value, static_cast<std::int32_t>(table.names.size()));
    if (added) table.names.emplace_back(t.Str(t.gpu.name[i]));
    r.name = name->second;
    if (r.bytes > 0) r.weight_bytes = r.bytes * f.weight_share[i];
    r.attention = f.attention[i];
    r.batch = batches.Of(f.cost_op[i], r.attention);
    table.rows.push_back(r);
  }
  std::sort(table.rows.begin(), table.rows.end(),
            [](const ActivityRow& a, const ActivityRow& b) { return a.start_ns < b.start_ns; });

  // The host waits of the threads that launched the window's work.
  const TimeNs lo = table.rows.empty() ? 0 : table.rows.front().start_ns;
  for (const auto& [start, end] : f.host_syncs) {
    if (end >= lo) table.waits.push_back({start, end});
  }
  return table;
}

}  // namespace plasmient::verdict
