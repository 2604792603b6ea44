#include "verdict/kernel_costs.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "base/name_memo.h"
#include "roofline/kernel_name.h"
#include "roofline/op_cost.h"

namespace plasmient::verdict {
namespace {

using model::Dq;

struct OpPrice {
  bool done = false;
  roofline::OpCost cost;
  bool backward = false;
};

bool IsBackwardName(std::string_view name) {
  return name.find("Backward") != std::string_view::npos || name.find("backward") != std::string_view::npos ||
         name.starts_with("autograd::engine::evaluate_function");
}

class OpPricer {
 public:
  OpPricer(model::Trace& t, const join::Joined& j)
      : t_(t), j_(j), prices_(t.cpu.size()), is_backward_name_(t.strings, IsBackwardName) {}

  const OpPrice& Get(std::int32_t row) {
    OpPrice& p = prices_[row];
    if (p.done) return p;
    p.done = true;
    const auto& cpu = t_.cpu;
    p.cost = Estimate(row);
    if (!p.cost.model.empty() && p.cost.flops < 0 && p.cost.bytes < 0) {
      t_.quality.Add(Dq::kOpNoShapes);
    }
    if (p.cost.conv_assumed_geometry) t_.quality.Add(Dq::kConvAssumedGeometry);
    p.backward = p.cost.backward;
    for (std::int32_t a = row; a >= 0 && !p.backward; a = j_.op_parent[a]) {
      p.backward = is_backward_name_(cpu.name[a]);
    }
    return p;
  }

  // The innermost op on the kernel's chain that has a usable model.
  std::int32_t CostOp(std::int32_t op) {
    for (int depth = 0; op >= 0 && depth < 64; ++depth, op = j_.op_parent[op]) {
      const OpPrice& p = Get(op);
      if (p.cost.flops >= 0 || p.cost.bytes >= 0) return op;
    }
    return -1;
  }

 private:
  // Ops repeat with the same name and shapes every step: each distinct one is priced once.
  roofline::OpCost Estimate(std::int32_t row) {
    const auto& cpu = t_.cpu;
    std::array<std::uint32_t, 4> key = {cpu.name[row].value, cpu.input_dims[row].value,
                                        cpu.input_types[row].value, cpu.concrete_inputs[row].value};
    auto [it, fresh] = estimates_.try_emplace(key);
    if (fresh) {
      it->second = roofline::EstimateOp(t_.Str(cpu.name[row]), t_.Str(cpu.input_dims[row]),
                                        t_.Str(cpu.input_types[row]), t_.Str(cpu.concrete_inputs[row]));
    }
    return it->second;
  }

  struct KeyHash {
    std::size_t operator()(const std::array<std::uint32_t, 4>& k) const noexcept {
      std::uint64_t h = 0x9e3779b97f4a7c15ull;
      for (std::uint32_t v : k) h = (h ^ v) * 0xff51afd7ed558ccdull;
      return static_cast<std::size_t>(h ^ (h >> 32));
    }
  };

  model::Trace& t_;
  const join::Joined& j_;
  std::vector<OpPrice> prices_;
  NameMemo<bool (*)(std::string_view)> is_backward_name_;
  std::unordered_map<std::array<std::uint32_t, 4>, roofline::OpCost, KeyHash> estimates_;
};

}  // namespace

KernelCosts PriceKernels(model::Trace& t, const join::Joined& j, const std::vector<char>& kept) {
  const std::size_t n = t.gpu.size();
  KernelCosts c;
  c.flops.assign(n, -1);
  c.bytes.assign(n, -1);
  c.dtype.assign(n, roofline::Dtype::kUnknown);
  c.cost_op.assign(n, -1);
  c.backward.assign(n, 0);
  c.heavy_op.assign(n, 0);
  c.op_ai.assign(n, -1);

  OpPricer pricer(t, j);
  NameMemo is_heavy(t.strings, [](std::string_view name) { return roofline::IsHeavyKernelName(name); });
  // Group the kept compute kernels by the op that prices them.
  struct Group {
    std::vector<std::int32_t> kernels;
    double heavy_ns = 0, all_ns = 0;
  };
  std::unordered_map<std::int32_t, Group> groups;
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept[i] || j.cls[i] != join::ActivityClass::kCompute || j.op[i] < 0) continue;
    std::int32_t op = pricer.CostOp(j.op[i]);
    if (op < 0) {
      c.backward[i] = pricer.Get(j.op[i]).backward;
      continue;
    }
    Group& g = groups[op];
    g.kernels.push_back(static_cast<std::int32_t>(i));
    double dur = static_cast<double>(t.gpu.end_ns[i] - t.gpu.start_ns[i]);
    g.all_ns += dur;
    if (is_heavy(t.gpu.name[i])) g.heavy_ns += dur;
  }
  for (auto& [op, g] : groups) {
    const OpPrice& p = pricer.Get(op);
    bool by_heavy = g.heavy_ns > 0;
    double total = by_heavy ? g.heavy_ns : g.all_ns;
    for (std::int32_t k : g.kernels) {
      c.cost_op[k] = op;
      c.dtype[k] = p.cost.dtype;
      c.backward[k] = p.backward;
      c.heavy_op[k] = p.cost.heavy;
      if (p.cost.bytes > 0) c.op_ai[k] = std::max(0.0, p.cost.flops) / p.cost.bytes;
      double dur = static_cast<double>(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
      bool receives = !by_heavy || is_heavy(t.gpu.name[k]);
      // Kernels of a priced op that receive no share carry zero cost, not "unmodeled": the
      // op's model covered its work, and their time is that op's overhead.
      double w = total > 0 ? dur / total : 1.0 / static_cast<double>(g.kernels.size());
      if (!receives) w = 0;
      c.flops[k] = p.cost.flops >= 0 ? p.cost.flops * w : (p.cost.bytes >= 0 ? 0 : -1);
      c.bytes[k] = p.cost.bytes >= 0 ? p.cost.bytes * w : -1;
    }
  }
  return c;
}

}  // namespace plasmient::verdict
