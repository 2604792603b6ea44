// The model layer as a tree: module and annotation ranges nested by time on their host thread
// (join.h), named by their chain of names from the outermost range down, e.g.
// "Qwen2Model_0/Qwen2DecoderLayer_3/Qwen2Attention_3". Ranges with the same path (the same
// module instance in every step) are one node. Every GPU activity belongs to exactly one node:
// its layer's, or "(backward)" (a backward kernel whose forward op is not in the trace), or
// "(no module)" (docs/layers.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "join/join.h"
#include "model/trace.h"

namespace plasmient::join {

inline constexpr std::string_view kNoModuleNode = "(no module)";
inline constexpr std::string_view kBackwardNode = "(backward)";

struct LayerNode {
  std::string path;  // names joined by '/'
  std::string name;  // the last one
  std::string type;  // a module's class ("Qwen2Attention_3" -> "Qwen2Attention"); an annotation's name
  std::int32_t parent = -1;
  std::int32_t depth = 0;  // 0 at the top
  std::int64_t calls = 0;  // ranges of this path that ran (a module instance's forward calls)
};

struct LayerTree {
  std::vector<LayerNode> nodes;        // parents before children
  std::vector<std::int32_t> activity;  // per GpuActivities row: its node; -1 when not kept
};

// The class of a module instance: the name without its trailing "_<digits>".
std::string_view ModuleType(std::string_view instance);

// The tree of the kept activities (`kept[i]`: in the analyzed window).
LayerTree BuildLayerTree(const model::Trace& trace, const Joined& joined, const std::vector<char>& kept);

}  // namespace plasmient::join
