#include "verdict/kernel_costs.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "base/name_memo.h"
#include "roofline/kernel_name.h"
#include "roofline/op_args_parser.h"
#include "roofline/op_cost.h"

namespace plasmient::verdict {
namespace {

using model::CpuOpRowId;
using model::Dq;

// An op row's price: its cost, shared by every row with the same name and shapes, and whether
// it ran under autograd's backward pass.
struct OpPrice {
  const roofline::OpCost& cost;
  bool backward = false;
};

class OpPricer {
 public:
  OpPricer(const model::Trace& t, const join::Joined& j, model::DataQuality& quality)
      : t_(t),
        quality_(quality),
        j_(j),
        cost_(t.cpu.size(), nullptr),
        backward_(t.cpu.size(), 0),
        is_backward_name_(t.strings, join::IsBackwardOpName) {}

  // The cost it refers to stays valid for the pricer's life.
  OpPrice Get(CpuOpRowId op) {
    const std::size_t row = op.index();
    if (cost_[row] != nullptr) return {*cost_[row], backward_[row] != 0};
    const auto& cpu = t_.cpu;
    const roofline::OpCost* cost = &Estimate(row);
    if (cost->conv_assumed_geometry) cost = &row_costs_.emplace_back(EstimateWithConvOutput(row, *cost));
    if (!cost->model.empty() && cost->flops < 0 && cost->bytes < 0) {
      quality_.Add(Dq::kOpNoShapes);
    }
    if (cost->conv_assumed_geometry) quality_.Add(Dq::kConvAssumedGeometry);
    if (cost->conv_output_from_trace) quality_.Add(Dq::kConvOutputFromTrace);
    bool backward = cost->backward;
    for (CpuOpRowId a = op; a.has_value() && !backward; a = j_.op_parent[a.index()]) {
      backward = is_backward_name_(cpu.name[a.index()]);
    }
    cost_[row] = cost;
    backward_[row] = backward;
    return {*cost, backward};
  }

  // The innermost op on the kernel's chain that has a usable model.
  CpuOpRowId CostOp(CpuOpRowId op) {
    for (int depth = 0; op.has_value() && depth < 64; ++depth, op = j_.op_parent[op.index()]) {
      const OpPrice p = Get(op);
      if (p.cost.flops >= 0 || p.cost.bytes >= 0) return op;
    }
    return {};
  }

 private:
  // Ops repeat with the same name and shapes every step: each distinct one is priced once.
  const roofline::OpCost& Estimate(std::size_t row) {
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

  // A convolution without stride/padding: its output shape from the trace, else the estimate
  // as it was (stride 1 assumed).
  roofline::OpCost EstimateWithConvOutput(std::size_t row, const roofline::OpCost& assumed) {
    const auto& cpu = t_.cpu;
    std::vector<std::int64_t> output = BackwardGradOutput(row);
    if (output.empty()) output = ConsumerInput(row);
    if (output.empty()) return assumed;
    return roofline::EstimateOp(t_.Str(cpu.name[row]), t_.Str(cpu.input_dims[row]),
                                t_.Str(cpu.input_types[row]), t_.Str(cpu.concrete_inputs[row]),
                                roofline::Dtype::kUnknown, output);
  }

  // Training: the backward op of the same convolution (same input and weight shapes) carries
  // grad_output, the forward output's shape.
  std::vector<std::int64_t> BackwardGradOutput(std::size_t row) {
    if (!grad_outputs_built_) BuildGradOutputs();
    roofline::OpDims dims;
    if (!dims.Parse(t_.Str(t_.cpu.input_dims[row]))) return {};
    auto it = grad_outputs_.find(ConvKey(dims.Shape(0), dims.Shape(1)));
    return it == grad_outputs_.end() ? std::vector<std::int64_t>{} : it->second;
  }

  void BuildGradOutputs() {
    grad_outputs_built_ = true;
    const auto& cpu = t_.cpu;
    // Argument positions (input, weight, grad_output) of the backward ops.
    struct Layout {
      std::string_view name;
      int input, weight, grad_output;
    };
    constexpr Layout kLayouts[] = {{"aten::convolution_backward", 1, 2, 0},
                                   {"aten::cudnn_convolution_backward", 0, 2, 1},
                                   {"aten::miopen_convolution_backward", 0, 2, 1}};
    for (std::size_t r = 0; r < cpu.size(); ++r) {
      std::string_view name = t_.Str(cpu.name[r]);
      const Layout* layout = nullptr;
      for (const Layout& l : kLayouts) layout = name == l.name ? &l : layout;
      if (layout == nullptr) continue;
      roofline::OpDims dims;
      if (!dims.Parse(t_.Str(cpu.input_dims[r]))) continue;
      auto gout = dims.Shape(layout->grad_output);
      if (gout.size() < 3) continue;
      grad_outputs_.try_emplace(ConvKey(dims.Shape(layout->input), dims.Shape(layout->weight)), gout.begin(),
                                gout.end());
    }
  }

  static std::string ConvKey(std::span<const std::int64_t> input, std::span<const std::int64_t> weight) {
    std::string key;
    for (std::int64_t v : input) key += std::to_string(v) + ',';
    key += '|';
    for (std::int64_t v : weight) key += std::to_string(v) + ',';
    return key;
  }

  // Inference: the next op on the thread after the convolution (and the ops wrapping it)
  // whose first input is [N, C_out, ...]: batch norm, activation, add, pooling.
  std::vector<std::int64_t> ConsumerInput(std::size_t row) {
    const auto& cpu = t_.cpu;
    roofline::OpDims dims;
    if (!dims.Parse(t_.Str(cpu.input_dims[row]))) return {};
    auto x = dims.Shape(0), w = dims.Shape(1);
    if (x.size() < 3 || w.size() != x.size()) return {};
    TimeNs end = cpu.end_ns[row];
    for (CpuOpRowId a = j_.op_parent[row]; a.has_value(); a = j_.op_parent[a.index()]) {
      if (t_.Str(cpu.name[a.index()]).find("conv") == std::string_view::npos) break;
      end = cpu.end_ns[a.index()];
    }
    if (thread_order_.empty()) BuildThreadOrder();
    const std::int32_t pos = position_[row];
    constexpr int kLookAhead = 16;  // ops after the convolution that may consume its output
    int seen = 0;
    for (std::size_t i = pos + 1; i < thread_order_.size() && seen < kLookAhead; ++i) {
      const std::int32_t r = thread_order_[i];
      if (cpu.pid[r] != cpu.pid[row] || cpu.tid[r] != cpu.tid[row]) break;
      if (cpu.start_ns[r] < end || cpu.kind[r] != model::CpuOpKind::kOp) continue;
      ++seen;
      roofline::OpDims next;
      if (!next.Parse(t_.Str(cpu.input_dims[r])) || next.arg_count() == 0) continue;
      auto in = next.Shape(0);
      if (in.size() == x.size() && in[0] == x[0] && in[1] == w[0]) return {in.begin(), in.end()};
    }
    return {};
  }

  void BuildThreadOrder() {
    const auto& cpu = t_.cpu;
    thread_order_.resize(cpu.size());
    for (std::size_t r = 0; r < cpu.size(); ++r) thread_order_[r] = static_cast<std::int32_t>(r);
    std::stable_sort(thread_order_.begin(), thread_order_.end(), [&](std::int32_t a, std::int32_t b) {
      return std::tie(cpu.pid[a], cpu.tid[a], cpu.start_ns[a]) <
             std::tie(cpu.pid[b], cpu.tid[b], cpu.start_ns[b]);
    });
    position_.resize(cpu.size());
    for (std::size_t i = 0; i < thread_order_.size(); ++i)
      position_[thread_order_[i]] = static_cast<std::int32_t>(i);
  }

  struct KeyHash {
    std::size_t operator()(const std::array<std::uint32_t, 4>& k) const noexcept {
      std::uint64_t h = 0x9e3779b97f4a7c15ull;
      for (std::uint32_t v : k) h = (h ^ v) * 0xff51afd7ed558ccdull;
      return static_cast<std::size_t>(h ^ (h >> 32));
    }
  };

  const model::Trace& t_;
  model::DataQuality& quality_;
  const join::Joined& j_;
  // Ops repeat with the same shapes every step: a priced row points at its shapes' estimate
  // (a node of estimates_, which stays put) instead of holding a copy.
  std::vector<const roofline::OpCost*> cost_;  // per op row: its cost, or null before Get
  std::vector<char> backward_;                 // per op row: OpPrice::backward, once priced
  std::deque<roofline::OpCost> row_costs_;     // costs of one row only (convolutions re-estimated)
  NameMemo<bool (*)(std::string_view)> is_backward_name_;
  std::unordered_map<std::array<std::uint32_t, 4>, roofline::OpCost, KeyHash> estimates_;
  bool grad_outputs_built_ = false;
  std::unordered_map<std::string, std::vector<std::int64_t>> grad_outputs_;  // ConvKey → grad_output
  std::vector<std::int32_t> thread_order_, position_;  // op rows by (pid, tid, start), and back
};

// A kernel whose launch the trace lost (ROCm traces drop some) has no op, so no shapes; the
// same kernel (same name) priced elsewhere in the trace, with the nearest duration, very
// likely ran the same shapes: it lends its cost (docs/verdict.md, "Kernels without an op").
void PriceByTwin(const model::Trace& t, const std::vector<std::int32_t>& orphans, KernelCosts& c) {
  if (orphans.empty()) return;
  std::unordered_map<std::uint32_t, std::vector<std::pair<TimeNs, std::int32_t>>> priced;  // by duration
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (c.cost_op[k].has_value() && (c.flops[k] >= 0 || c.bytes[k] >= 0)) {
      priced[t.gpu.name[k].value].push_back(
          {t.gpu.end_ns[k] - t.gpu.start_ns[k], static_cast<std::int32_t>(k)});
    }
  }
  for (auto& [name, v] : priced) std::sort(v.begin(), v.end());
  for (std::int32_t k : orphans) {
    auto it = priced.find(t.gpu.name[k].value);
    if (it == priced.end()) continue;
    const auto& v = it->second;
    const TimeNs dur = t.gpu.end_ns[k] - t.gpu.start_ns[k];
    auto near = std::lower_bound(v.begin(), v.end(), std::pair<TimeNs, std::int32_t>{dur, -1});
    if (near == v.end() || (near != v.begin() && dur - std::prev(near)->first < near->first - dur)) --near;
    const std::int32_t twin = near->second;
    c.flops[k] = c.flops[twin];
    c.bytes[k] = c.bytes[twin];
    c.dtype[k] = c.dtype[twin];
    c.backward[k] = c.backward[twin];
    c.heavy_op[k] = c.heavy_op[twin];
    c.attention[k] = c.attention[twin];
    c.weight_share[k] = c.weight_share[twin];
    c.op_ai[k] = c.op_ai[twin];
    c.cost_op[k] = c.cost_op[twin];
  }
}

}  // namespace

KernelCosts PriceKernels(const model::Trace& t, const join::Joined& j, const std::vector<char>& kept,
                         model::DataQuality& quality) {
  const std::size_t n = t.gpu.size();
  KernelCosts c;
  c.flops.assign(n, -1);
  c.bytes.assign(n, -1);
  c.dtype.assign(n, roofline::Dtype::kUnknown);
  c.cost_op.assign(n, {});
  c.backward.assign(n, 0);
  c.heavy_op.assign(n, 0);
  c.attention.assign(n, 0);
  c.weight_share.assign(n, 0);
  c.op_ai.assign(n, -1);
  c.gemm_mnk.Reset(n);

  OpPricer pricer(t, j, quality);
  NameMemo is_heavy(t.strings, [](std::string_view name) { return roofline::IsHeavyKernelName(name); });
  // Group the kept compute kernels by the op that prices them. Groups are numbered by first
  // kernel and looked up by op row: flat arrays, where a hash map per kernel cost more than
  // the pricing itself.
  // A graph's kernels are grouped per replay as well: each replay of a captured op runs its work
  // again (docs/graphs.md), where an eager op's kernels all come from its one call.
  struct Group {
    CpuOpRowId op;
    std::int32_t replay = -1;  // the graph launch (ApiCalls row) that replayed its kernels, or -1
    std::int32_t kernels = 0;
    double heavy_ns = 0, all_ns = 0;
    bool has_priced_children = false;
    double children_flops = 0, children_bytes = 0;  // of the priced child ops, counted there
  };
  std::vector<Group> groups;
  std::vector<std::int32_t> group_of(t.cpu.size(), -1);  // per op row: its eager group, or -1
  std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> replay_group_of;  // (op, replay) → group
  auto find_group = [&](CpuOpRowId op, std::int32_t replay) -> std::int32_t* {
    if (replay < 0) return &group_of[op.index()];
    return &replay_group_of.try_emplace({static_cast<std::int32_t>(op.index()), replay}, -1).first->second;
  };
  std::vector<std::int32_t> kernel_group(n, -1);
  std::vector<char> heavy(n, 0);         // a grouped kernel's name is a heavy kernel's
  std::vector<std::int32_t> without_op;  // kept compute kernels no launch ties to an op
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept[i] || j.cls[i] != join::ActivityClass::kCompute) continue;
    if (!j.op[i].has_value()) {
      without_op.push_back(static_cast<std::int32_t>(i));
      continue;
    }
    CpuOpRowId op = pricer.CostOp(j.op[i]);
    if (!op.has_value()) {
      c.backward[i] = pricer.Get(j.op[i]).backward;
      continue;
    }
    const std::int32_t replay =
        j.graphs.replayed[i] && j.launch[i].has_value() ? static_cast<std::int32_t>(j.launch[i].index()) : -1;
    std::int32_t& g = *find_group(op, replay);
    if (g < 0) {
      g = static_cast<std::int32_t>(groups.size());
      groups.push_back({.op = op, .replay = replay});
    }
    kernel_group[i] = g;
    Group& group = groups[static_cast<std::size_t>(g)];
    c.cost_op[i] = op;
    ++group.kernels;
    double dur = static_cast<double>(t.gpu.end_ns[i] - t.gpu.start_ns[i]);
    group.all_ns += dur;
    heavy[i] = is_heavy(t.gpu.name[i]);
    if (heavy[i]) group.heavy_ns += dur;
  }
  // An op whose kernels are partly launched by priced child ops (cudnn_convolution_backward
  // and its _input half, matmul and its bmm) already has those children's work counted: its
  // own kernels get the rest, never the whole op again.
  for (const Group& g : groups) {
    for (CpuOpRowId a = j.op_parent[g.op.index()]; a.has_value(); a = j.op_parent[a.index()]) {
      const std::int32_t parent = *find_group(a, g.replay);
      if (parent < 0) continue;
      const roofline::OpCost& child = pricer.Get(g.op).cost;
      Group& to = groups[static_cast<std::size_t>(parent)];
      to.has_priced_children = true;
      to.children_flops += std::max(0.0, child.flops);
      to.children_bytes += std::max(0.0, child.bytes);
      break;
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    const CpuOpRowId op = c.cost_op[k];
    if (!op.has_value()) continue;
    const Group& g = groups[static_cast<std::size_t>(kernel_group[k])];
    const OpPrice p = pricer.Get(op);
    const double own_flops = !g.has_priced_children || p.cost.flops < 0
                                 ? p.cost.flops
                                 : std::max(0.0, p.cost.flops - g.children_flops);
    const double own_bytes = !g.has_priced_children || p.cost.bytes < 0
                                 ? p.cost.bytes
                                 : std::max(0.0, p.cost.bytes - g.children_bytes);
    bool by_heavy = g.heavy_ns > 0;
    double total = by_heavy ? g.heavy_ns : g.all_ns;
    c.dtype[k] = p.cost.dtype;
    c.backward[k] = p.backward;
    c.heavy_op[k] = p.cost.heavy;
    c.attention[k] = p.cost.attention();
    if (p.cost.bytes > 0) c.weight_share[k] = std::clamp(p.cost.weight_bytes / p.cost.bytes, 0.0, 1.0);
    c.gemm_mnk.Set(k, p.cost.gemm_mnk);
    if (p.cost.bytes > 0) c.op_ai[k] = std::max(0.0, p.cost.flops) / p.cost.bytes;
    double dur = static_cast<double>(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
    bool receives = !by_heavy || heavy[k];
    // Kernels of a priced op that receive no share carry zero cost, not "unmodeled": the
    // op's model covered its work, and their time is that op's overhead.
    double w = total > 0 ? dur / total : 1.0 / static_cast<double>(g.kernels);
    if (!receives) w = 0;
    c.flops[k] = own_flops >= 0 ? own_flops * w : (own_bytes >= 0 ? 0 : -1);
    c.bytes[k] = own_bytes >= 0 ? own_bytes * w : -1;
  }
  PriceByTwin(t, without_op, c);
  return c;
}

}  // namespace plasmient::verdict
