#include "verdict/layers.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "join/layer_tree.h"

namespace plasmient::verdict {
namespace {

void KeepTop(std::vector<std::pair<std::string, double>>& kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (kernels.size() > kLayerTopKernels) kernels.resize(kLayerTopKernels);
}

// Depth-first order: parents before children, siblings in first-seen order, the catch-all
// nodes last; parent indices follow.
void OrderDepthFirst(std::vector<LayerFigures>& nodes) {
  std::vector<std::vector<std::int32_t>> children(nodes.size());
  std::vector<std::int32_t> roots, last;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    auto id = static_cast<std::int32_t>(k);
    if (nodes[k].parent >= 0) {
      children[nodes[k].parent].push_back(id);
    } else {
      (IsCatchAllLayer(nodes[k].path) ? last : roots).push_back(id);
    }
  }
  roots.insert(roots.end(), last.begin(), last.end());
  std::vector<std::int32_t> order, new_index(nodes.size(), -1);
  order.reserve(nodes.size());
  std::vector<std::int32_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    std::int32_t k = stack.back();
    stack.pop_back();
    new_index[k] = static_cast<std::int32_t>(order.size());
    order.push_back(k);
    stack.insert(stack.end(), children[k].rbegin(), children[k].rend());
  }
  std::vector<LayerFigures> out;
  out.reserve(order.size());
  for (std::int32_t k : order) {
    out.push_back(std::move(nodes[k]));
    if (out.back().parent >= 0) out.back().parent = new_index[out.back().parent];
  }
  nodes = std::move(out);
}

void SortTypes(std::vector<LayerFigures>& types) {
  std::stable_sort(types.begin(), types.end(),
                   [](const LayerFigures& a, const LayerFigures& b) { return a.gpu_time_s > b.gpu_time_s; });
}

// (node or type, kernel name) -> GPU time, for the top kernels inside each.
using KernelTimes = std::unordered_map<std::uint64_t, double>;

void FillTopKernels(const KernelTimes& times, const model::Trace& t, std::vector<LayerFigures>& out) {
  for (auto [key, seconds] : times) {
    auto& list = out[key >> 32].top_kernels;
    list.emplace_back(std::string(t.strings.Get(StringId{static_cast<std::uint32_t>(key)})), seconds);
  }
  for (auto& f : out) KeepTop(f.top_kernels);
}

}  // namespace

bool IsCatchAllLayer(std::string_view path_or_type) {
  return path_or_type == join::kNoModuleNode || path_or_type == join::kBackwardNode;
}

double Layers::gpu_time_s() const {
  double sum = 0;
  for (const auto& n : nodes) sum += n.depth == 0 ? n.gpu_time_s : 0;
  return sum;
}

double Layers::share_of_gpu_time(const LayerFigures& f) const {
  const double total = gpu_time_s();
  return total > 0 ? f.gpu_time_s / total : 0;
}

bool Layers::has_ranges() const {
  return std::any_of(nodes.begin(), nodes.end(),
                     [](const LayerFigures& n) { return !IsCatchAllLayer(n.path); });
}

Loss LayerFigures::main_loss() const {
  return static_cast<Loss>(std::max_element(loss_s.begin(), loss_s.end()) - loss_s.begin());
}

void LayerFigures::Add(const LayerFigures& o) {
  instances += o.instances;
  calls += o.calls;
  kernels += o.kernels;
  gpu_time_s += o.gpu_time_s;
  useful_s += o.useful_s;
  for (std::size_t l = 0; l < kLossCount; ++l) loss_s[l] += o.loss_s[l];
  flops += o.flops;
  for (const auto& [name, seconds] : o.top_kernels) {
    auto it =
        std::find_if(top_kernels.begin(), top_kernels.end(), [&](const auto& k) { return k.first == name; });
    if (it != top_kernels.end()) {
      it->second += seconds;
    } else {
      top_kernels.emplace_back(name, seconds);
    }
  }
  KeepTop(top_kernels);
}

Layers RollUpLayers(const model::Trace& t, const join::Joined& j, const ActivityFacts& in, double window_s) {
  join::LayerTree tree = join::BuildLayerTree(t, j, in.kept);
  Layers out;
  out.window_s = window_s;
  out.nodes.resize(tree.nodes.size());
  std::unordered_map<std::string_view, std::int32_t> type_index;
  std::vector<std::int32_t> node_type(tree.nodes.size());
  for (std::size_t k = 0; k < tree.nodes.size(); ++k) {
    const join::LayerNode& n = tree.nodes[k];
    LayerFigures& f = out.nodes[k];
    f.path = n.path;
    f.name = n.name;
    f.type = n.type;
    f.depth = n.depth;
    f.parent = n.parent;
    f.calls = n.calls;
    f.instances = 1;
    auto [it, added] = type_index.try_emplace(n.type, static_cast<std::int32_t>(out.types.size()));
    if (added) out.types.push_back(LayerFigures{.type = n.type});
    node_type[k] = it->second;
    out.types[it->second].instances += 1;
    out.types[it->second].calls += n.calls;
  }

  KernelTimes node_kernels, type_kernels;
  std::vector<std::int32_t> types_seen;
  for (std::size_t i = 0; i < tree.activity.size(); ++i) {
    std::int32_t leaf = tree.activity[i];
    if (leaf < 0) continue;
    const double share = NsToSeconds(in.share_ns[i]), useful = NsToSeconds(in.useful_ns[i]);
    const double flops = std::max(0.0, in.flops[i]);
    const auto loss = static_cast<std::size_t>(in.loss[i]);
    const std::uint32_t name = t.gpu.name[i].value;
    auto add = [&](LayerFigures& f) {
      f.kernels += 1;
      f.gpu_time_s += share;
      f.useful_s += useful;
      f.loss_s[loss] += share - useful;
      f.flops += flops;
    };
    types_seen.clear();
    for (std::int32_t n = leaf; n >= 0; n = tree.nodes[n].parent) {
      add(out.nodes[n]);
      node_kernels[(static_cast<std::uint64_t>(n) << 32) | name] += share;
      std::int32_t type = node_type[n];
      // A type nested in itself (Sequential in Sequential) counts the activity once.
      if (std::find(types_seen.begin(), types_seen.end(), type) != types_seen.end()) continue;
      types_seen.push_back(type);
      add(out.types[type]);
      type_kernels[(static_cast<std::uint64_t>(type) << 32) | name] += share;
    }
  }
  FillTopKernels(node_kernels, t, out.nodes);
  FillTopKernels(type_kernels, t, out.types);
  OrderDepthFirst(out.nodes);
  SortTypes(out.types);
  return out;
}

RangeLedger RollUpRanges(const model::Trace& t, const join::Joined& j, const ActivityFacts& in) {
  constexpr int kMaxDepth = 64;  // as deep as the tree goes (join/layer_tree.cc)
  RangeLedger out;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!in.kept[i] || !j.layer[i].has_value()) continue;
    const auto loss = static_cast<std::size_t>(in.loss[i]);
    int depth = 0;
    for (model::CpuOpRowId r = j.layer[i]; r.has_value() && depth < kMaxDepth;
         r = j.op_parent[r.index()], ++depth) {
      if (!join::IsLayerRange(t.cpu.kind[r.index()])) continue;
      RangeFigures& f = out[r];
      f.gpu_time_ns += in.share_ns[i];
      f.useful_ns += in.useful_ns[i];
      f.loss_ns[loss] += in.share_ns[i] - in.useful_ns[i];
      f.kernels += 1;
    }
  }
  return out;
}

Layers MergeLayers(std::span<const RankVerdict> ranks) {
  Layers out;
  std::unordered_map<std::string, std::int32_t> by_path, by_type;
  std::vector<std::int32_t> rank_index;
  for (const RankVerdict& r : ranks) {
    out.window_s += r.layers.window_s;
    rank_index.assign(r.layers.nodes.size(), -1);
    for (std::size_t k = 0; k < r.layers.nodes.size(); ++k) {
      const LayerFigures& f = r.layers.nodes[k];
      auto [it, added] = by_path.try_emplace(f.path, static_cast<std::int32_t>(out.nodes.size()));
      rank_index[k] = it->second;
      if (added) {
        out.nodes.push_back(f);
        out.nodes.back().parent = f.parent >= 0 ? rank_index[f.parent] : -1;
        out.nodes.back().instances = 1;
      } else {
        std::int64_t instances = out.nodes[it->second].instances;
        out.nodes[it->second].Add(f);
        out.nodes[it->second].instances = instances;
      }
    }
    for (const LayerFigures& f : r.layers.types) {
      auto [it, added] = by_type.try_emplace(f.type, static_cast<std::int32_t>(out.types.size()));
      if (added) {
        out.types.push_back(f);
      } else {
        out.types[it->second].Add(f);
      }
    }
  }
  // A type's instances in the job: its distinct paths.
  for (auto& type : out.types) type.instances = 0;
  for (const auto& node : out.nodes) out.types[by_type.at(node.type)].instances += 1;
  OrderDepthFirst(out.nodes);
  SortTypes(out.types);
  return out;
}

}  // namespace plasmient::verdict
