#include "verdict/op_times.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace plasmient::verdict {
namespace {

struct OpAcc {
  model::CpuOpRowId op;  // a CpuOps row with this key, or none
  std::map<std::int64_t, double> step_s;
  std::unordered_map<std::uint32_t, double> kernel_s;  // by kernel name
  double total_s = 0;
};

}  // namespace

double OpStepTimes::total_s() const {
  double s = 0;
  for (const auto& [step, seconds] : step_s) s += seconds;
  return s;
}

std::vector<OpStepTimes> CollectOpTimes(const model::Trace& t, const ActivityFacts& f) {
  // Keyed by (op name, Input Dims) string ids, or by the kernel name for kernels under no op.
  std::map<std::pair<std::uint32_t, std::uint32_t>, OpAcc> by_key;
  std::map<std::uint32_t, OpAcc> by_kernel;
  for (std::size_t k = 0; k < f.size(); ++k) {
    if (!f.kept[k] || f.cls[k] != join::ActivityClass::kCompute) continue;
    const model::CpuOpRowId op = f.op[k];
    OpAcc& a = op.has_value() ? by_key[{t.cpu.name[op.index()].value, t.cpu.input_dims[op.index()].value}]
                              : by_kernel[t.gpu.name[k].value];
    const double dur_s = NsToSeconds(std::max<TimeNs>(0, t.gpu.end_ns[k] - t.gpu.start_ns[k]));
    a.op = op;
    a.step_s[f.step_number[k]] += dur_s;
    a.kernel_s[t.gpu.name[k].value] += dur_s;
    a.total_s += dur_s;
  }
  std::vector<OpAcc*> all;
  all.reserve(by_key.size() + by_kernel.size());
  for (auto& [key, a] : by_key) all.push_back(&a);
  for (auto& [key, a] : by_kernel) all.push_back(&a);
  std::stable_sort(all.begin(), all.end(),
                   [](const OpAcc* a, const OpAcc* b) { return a->total_s > b->total_s; });
  const std::size_t kept = std::min(all.size(), kOpStepTimesKept);
  std::vector<OpStepTimes> out;
  out.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i) {
    const OpAcc& a = *all[i];
    OpStepTimes o;
    if (a.op.has_value()) {
      o.op = std::string(t.Str(t.cpu.name[a.op.index()]));
      o.shapes = std::string(t.Str(t.cpu.input_dims[a.op.index()]));
    }
    const auto top = std::max_element(a.kernel_s.begin(), a.kernel_s.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second < y.second : x.first > y.first;
    });
    o.kernel = std::string(t.Str(StringId{top->first}));
    o.step_s.assign(a.step_s.begin(), a.step_s.end());
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace plasmient::verdict
