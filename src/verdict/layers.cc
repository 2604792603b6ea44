#include "verdict/layers.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "base/parallel.h"
#include "join/layer_tree.h"

namespace plasmient::verdict {
namespace {

// Largest first, ties in their order (std::stable_sort's order): an insertion sort, as the lists
// are a few entries long and std::stable_sort takes a buffer from the heap on every call.
void KeepTop(std::vector<std::pair<std::string, double>>& kernels) {
  for (std::size_t i = 1; i < kernels.size(); ++i) {
    std::size_t j = i;
    while (j > 0 && kernels[j - 1].second < kernels[j].second) {
      std::swap(kernels[j - 1], kernels[j]);
      --j;
    }
  }
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
  // Each node's few largest kept by name id as the map is walked, and only those made strings: a
  // layer holds dozens of kernels, and a job ranks them for every layer of every rank. A time
  // equal to a kept one goes after it, so ties stay in the map's order, as KeepTop keeps them.
  struct Kept {
    std::uint32_t name;
    double seconds;
  };
  std::vector<std::array<Kept, kLayerTopKernels>> top(out.size());
  std::vector<std::uint8_t> count(out.size(), 0);
  for (auto [key, seconds] : times) {
    const std::size_t node = key >> 32;
    auto& kept = top[node];
    std::size_t n = count[node], at = 0;
    while (at < n && kept[at].seconds >= seconds) ++at;
    if (at == kLayerTopKernels) continue;
    if (n < kLayerTopKernels) count[node] = static_cast<std::uint8_t>(++n);
    for (std::size_t k = n - 1; k > at; --k) kept[k] = kept[k - 1];
    kept[at] = {static_cast<std::uint32_t>(key), seconds};
  }
  for (std::size_t node = 0; node < out.size(); ++node) {
    auto& list = out[node].top_kernels;
    list.reserve(count[node]);
    for (std::size_t k = 0; k < count[node]; ++k) {
      list.emplace_back(std::string(t.strings.Get(StringId{top[node][k].name})), top[node][k].seconds);
    }
  }
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

Layers MergeLayers(std::span<const RankVerdict> ranks, std::size_t threads) {
  Layers out;
  // Each job node's figures from the ranks, in rank order (in a rank, in its order); the node
  // takes its parent from the rank that first has it. Ranks of one job mostly share a tree: a
  // rank's node k is first tried where the previous rank's node k went.
  std::vector<std::vector<const LayerFigures*>> node_parts, type_parts;
  std::vector<std::int32_t> parents;
  std::unordered_map<std::string_view, std::int32_t> by_path, by_type;
  std::vector<std::int32_t> rank_index, previous;
  for (const RankVerdict& r : ranks) {
    out.window_s += r.layers.window_s;
    rank_index.assign(r.layers.nodes.size(), -1);
    for (std::size_t k = 0; k < r.layers.nodes.size(); ++k) {
      const LayerFigures& f = r.layers.nodes[k];
      std::int32_t at = k < previous.size() ? previous[k] : -1;
      if (at < 0 || node_parts[at].front()->path != f.path) {
        auto [it, added] = by_path.try_emplace(f.path, static_cast<std::int32_t>(node_parts.size()));
        if (added) {
          node_parts.emplace_back();
          parents.push_back(f.parent >= 0 ? rank_index[f.parent] : -1);
        }
        at = it->second;
      }
      rank_index[k] = at;
      node_parts[at].push_back(&f);
    }
    previous.swap(rank_index);
    for (const LayerFigures& f : r.layers.types) {
      auto [it, added] = by_type.try_emplace(f.type, static_cast<std::int32_t>(type_parts.size()));
      if (added) type_parts.emplace_back();
      type_parts[it->second].push_back(&f);
    }
  }
  // Then each node and type summed on its own, in that order: the same sums on any number of
  // threads.
  const std::size_t nodes = node_parts.size(), n = nodes + type_parts.size();
  out.nodes.resize(nodes);
  out.types.resize(type_parts.size());
  RunOverParts(threads, n, PartsFor(n, threads, 1), [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) {
      const bool node = j < nodes;
      const auto& parts = node ? node_parts[j] : type_parts[j - nodes];
      LayerFigures sum = *parts.front();
      if (node) sum.parent = parents[j], sum.instances = 1;
      for (std::size_t p = 1; p < parts.size(); ++p) {
        const std::int64_t instances = sum.instances;
        sum.Add(*parts[p]);
        if (node) sum.instances = instances;
      }
      (node ? out.nodes[j] : out.types[j - nodes]) = std::move(sum);
    }
  });
  // A type's instances in the job: its distinct paths.
  for (auto& type : out.types) type.instances = 0;
  for (const auto& node : out.nodes) out.types[by_type.at(node.type)].instances += 1;
  OrderDepthFirst(out.nodes);
  SortTypes(out.types);
  return out;
}

}  // namespace plasmient::verdict
