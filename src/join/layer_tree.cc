#include "join/layer_tree.h"

#include <unordered_map>

#include "model/module_hierarchy.h"

namespace plasmient::join {
namespace {

using model::CpuOpRowId;

constexpr int kMaxDepth = 64;

class TreeBuilder {
 public:
  TreeBuilder(const model::Trace& t, const Joined& j, LayerTree& tree)
      : t_(t), j_(j), tree_(tree), row_node_(t.cpu.size(), -1) {}

  // The node of layer range `range`, made with its ancestors on first use.
  std::int32_t NodeOfRange(CpuOpRowId range) {
    const std::size_t row = range.index();
    std::int32_t& known = row_node_[row];
    if (known >= 0) return known;
    std::int32_t parent = -1;
    CpuOpRowId up = j_.op_parent[row];
    for (int depth = 0; up.has_value() && depth < kMaxDepth && !IsLayerRange(t_.cpu.kind[up.index()]);
         ++depth) {
      up = j_.op_parent[up.index()];
    }
    if (up.has_value() && IsLayerRange(t_.cpu.kind[up.index()])) parent = NodeOfRange(up);
    std::string_view name = t_.Str(t_.cpu.name[row]);
    std::string_view type = t_.cpu.kind[row] == model::CpuOpKind::kModule ? ModuleType(name) : name;
    known = Node(parent, name, type);
    ++tree_.nodes[known].calls;
    return known;
  }

  // The node of op `op`'s Module Hierarchy (none: none), below layer range `range`'s node
  // when there is one; -1 when the string is not well formed. The ops carrying it are the leaf's
  // calls: the string marks ops, not module calls.
  std::int32_t NodeOfHierarchy(CpuOpRowId op, CpuOpRowId range) {
    if (!op.has_value()) return -1;
    const std::size_t row = op.index();
    std::int32_t& known = row_node_[row];
    if (known >= 0) return known;
    if (!model::ParseModuleHierarchy(t_.Str(t_.cpu.module_hierarchy[row]), &frames_)) return -1;
    std::int32_t node = range.has_value() ? NodeOfRange(range) : -1;
    for (const model::ModuleFrame& f : frames_) node = Node(node, f.instance, f.type);
    ++tree_.nodes[node].calls;
    known = node;
    return known;
  }

  // The innermost op enclosing `op` (itself included) that carries a Module Hierarchy, or none.
  CpuOpRowId HierarchyOp(CpuOpRowId op) const {
    for (int depth = 0; op.has_value() && depth < kMaxDepth; op = j_.op_parent[op.index()], ++depth) {
      const std::size_t r = op.index();
      if (t_.cpu.kind[r] == model::CpuOpKind::kOp && !t_.cpu.module_hierarchy[r].empty()) return op;
    }
    return {};
  }

  // Whether layer range `range` is a module range or inside one.
  bool UnderModule(CpuOpRowId range) const {
    for (int depth = 0; range.has_value() && depth < kMaxDepth;
         range = j_.op_parent[range.index()], ++depth) {
      if (t_.cpu.kind[range.index()] == model::CpuOpKind::kModule) return true;
    }
    return false;
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
  std::vector<model::ModuleFrame> frames_;
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
    const CpuOpRowId range = j.layer[i];
    // A Module Hierarchy string places a launch no nn.Module range encloses.
    std::int32_t node = -1;
    if ((j.layer_source[i] == LayerSource::kLaunch || j.layer_source[i] == LayerSource::kNone) &&
        !(range.has_value() && builder.UnderModule(range))) {
      node = builder.NodeOfHierarchy(builder.HierarchyOp(j.op[i]), range);
    }
    if (node >= 0) {
      tree.activity[i] = node;
    } else if (range.has_value()) {
      tree.activity[i] = builder.NodeOfRange(range);
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
