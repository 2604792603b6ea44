// The model layer from "Module Hierarchy" arguments (docs/layers.md): a hand-written Kineto
// trace whose ops carry the string, analyzed by the binary, gives the module tree the strings
// describe, their types, and GPU times that reconcile with the rank's.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

// Thread 1 runs six ops; each launches one kernel (GPU times in µs after each line):
//   layer0's linear (30), layer1's linear (20), act's relu (10), a malformed string (5),
//   a launch outside any op (5), and an op with a string inside an nn.Module range (15).
constexpr std::string_view kTrace = R"j({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
  "args": {"Module Hierarchy": "top(Net)::<unknown>.encoder(Encoder)::forward.layer0(Linear)::forward.aten::linear"}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 105, "dur": 40},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 2, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 120, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 200, "dur": 50,
  "args": {"Module Hierarchy": "top(Net)::<unknown>.encoder(Encoder)::forward.layer1(Linear)::forward.aten::linear"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 2, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 7, "ts": 215, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 300, "dur": 20,
  "args": {"Module Hierarchy": "top(Net)::<unknown>.act(ReLU)::forward.aten::relu"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 305, "dur": 2, "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "relu_k", "pid": 0, "tid": 7, "ts": 310, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 400, "dur": 10,
  "args": {"Module Hierarchy": "top(Net)::<unknown>.scale(Mul::forward..aten::mul"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 402, "dur": 2, "args": {"correlation": 4}},
 {"ph": "X", "cat": "kernel", "name": "mul_k", "pid": 0, "tid": 7, "ts": 405, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 4}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 500, "dur": 2, "args": {"correlation": 5}},
 {"ph": "X", "cat": "kernel", "name": "fill_k", "pid": 0, "tid": 7, "ts": 505, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 5}},
 {"ph": "X", "cat": "python_function", "name": "nn.Module: Block_0", "pid": 1, "tid": 1, "ts": 600, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 610, "dur": 50,
  "args": {"Module Hierarchy": "top(Net)::<unknown>.other(Other)::forward.aten::mm"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 620, "dur": 2, "args": {"correlation": 6}},
 {"ph": "X", "cat": "kernel", "name": "gemm_c", "pid": 0, "tid": 7, "ts": 625, "dur": 15, "args": {"device": 0, "stream": 7, "correlation": 6}}
]})j";

TEST(LayersFromModuleHierarchy, TreeTypesAndReconciliation) {
  const fs::path dir = TempDir("module_hierarchy");
  const fs::path in = dir / "trace.json", out = dir / "verdict.json";
  std::ofstream(in) << kTrace;
  CommandResult run =
      RunCommand(PlasmientBinary() + " analyze " + in.string() + " -q --json " + out.string());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  simdjson::dom::parser parser;
  element got;
  ASSERT_EQ(parser.load(out.string()).get(got), simdjson::SUCCESS);
  element rank = got["per_rank"].at(0);

  // path -> (type, GPU µs, calls); the top-level GPU time against the rank's.
  std::map<std::string, std::tuple<std::string, double, std::int64_t>> nodes;
  double top_level_s = 0;
  for (element node : rank["layers"].get_array()) {
    const double t = node["gpu_time_s"].get_double();
    nodes[std::string(node["path"].get_string().value())] = {std::string(node["type"].get_string().value()),
                                                             std::round(t * 1e6), node["calls"].get_int64()};
    if (node["depth"].get_int64() == 0) top_level_s += t;
  }
  using Node = std::tuple<std::string, double, std::int64_t>;
  const std::map<std::string, Node> expected = {
      {"top", {"Net", 60, 0}},
      {"top/encoder", {"Encoder", 50, 0}},
      {"top/encoder/layer0", {"Linear", 30, 1}},
      {"top/encoder/layer1", {"Linear", 20, 1}},
      {"top/act", {"ReLU", 10, 1}},
      {"(no module)", {"(no module)", 10, 0}},  // the malformed string and the launch outside ops
      {"Block_0", {"Block", 15, 1}},            // an enclosing nn.Module range comes first
  };
  EXPECT_EQ(nodes, expected);
  const double wall = rank["kernel_span_s"].get_double();
  EXPECT_NEAR(top_level_s, wall - rank["idle_s"].get_double(), 1e-9 * wall);
  EXPECT_NEAR(top_level_s, 85e-6, 1e-12);

  std::map<std::string, std::pair<double, std::int64_t>> types;
  for (element t : got["layer_types"].get_array()) {
    types[std::string(t["type"].get_string().value())] = {std::round(t["gpu_time_s"].get_double() * 1e6),
                                                          t["instances"].get_int64()};
  }
  EXPECT_EQ(types["Linear"], std::make_pair(50.0, std::int64_t{2}));
  EXPECT_EQ(types["Net"], std::make_pair(60.0, std::int64_t{1}));

  std::int64_t malformed = 0;
  for (element dq : rank["data_quality"].get_array()) {
    if (dq["name"].get_string().value() == "malformed_module_hierarchy") malformed = dq["count"].get_int64();
  }
  EXPECT_EQ(malformed, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::testing
