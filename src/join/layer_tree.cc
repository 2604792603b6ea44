#include "join/layer_tree.h"

#include <unordered_map>

namespace plasmient::join {
namespace {

constexpr int kMaxDepth = 64;

class TreeBuilder {
 public:
  TreeBuilder(const model::Trace& t, const Joined& j, LayerTree& tree)
      : t_(t), j_(j), tree_(tree), row_node_(t.cpu.size(), -1) {}

  // The node of layer range `row`, made with its ancestors on first use.
  std::int32_t NodeOfRange(std::int32_t row) {
    std::int32_t& known = row_node_[row];
    if (known >= 0) return known;
    std::int32_t parent = -1;
    std::int32_t up = j_.op_parent[row];
    for (int depth = 0; up >= 0 && depth < kMaxDepth && !IsLayerRange(t_.cpu.kind[up]); ++depth) {
      up = j_.op_parent[up];
    }
    if (up >= 0 && IsLayerRange(t_.cpu.kind[up])) parent = NodeOfRange(up);
    std::string_view name = t_.Str(t_.cpu.name[row]);
    std::string_view type = t_.cpu.kind[row] == model::CpuOpKind::kModule ? ModuleType(name) : name;
    known = Node(parent, name, type);
    ++tree_.nodes[known].calls;
    return known;
  }

  std::int32_t Node(std::int32_t parent, std::string_view name, std::string_view type) {
    std::string path = parent >= 0 ? tree_.nodes[parent].path + "/" + std::string(name) : std::string(name);
    auto [it, added] = by_path_.try_emplace(path, static_cast<std::int32_t>(tree_.nodes.size()));
    if (added) {
      LayerNode node;
      node.path = std::move(path);
      node.name = std::string(name);
      node.type = std::string(type);
      node.parent = parent;
      node.depth = parent >= 0 ? tree_.nodes[parent].depth + 1 : 0;
      tree_.nodes.push_back(std::move(node));
    }
    return it->second;
  }

 private:
  const model::Trace& t_;
  const Joined& j_;
  LayerTree& tree_;
  std::vector<std::int32_t> row_node_;
  std::unordered_map<std::string, std::int32_t> by_path_;
};

}  // namespace

std::string_view ModuleType(std::string_view instance) {
  std::size_t end = instance.size();
  while (end > 0 && instance[end - 1] >= '0' && instance[end - 1] <= '9') --end;
  if (end == instance.size() || end < 2 || instance[end - 1] != '_') return instance;
  return instance.substr(0, end - 1);
}

LayerTree BuildLayerTree(const model::Trace& t, const Joined& j, const std::vector<char>& kept) {
  LayerTree tree;
  TreeBuilder builder(t, j, tree);
  const std::size_t n = t.gpu.size();
  tree.activity.assign(n, -1);
  std::int32_t no_module = -1, backward = -1;
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept[i]) continue;
    if (j.layer[i] >= 0) {
      tree.activity[i] = builder.NodeOfRange(j.layer[i]);
    } else if (j.layer_source[i] == LayerSource::kBackward) {
      if (backward < 0) backward = builder.Node(-1, kBackwardNode, kBackwardNode);
      tree.activity[i] = backward;
    } else {
      if (no_module < 0) no_module = builder.Node(-1, kNoModuleNode, kNoModuleNode);
      tree.activity[i] = no_module;
    }
  }
  return tree;
}

}  // namespace plasmient::join
