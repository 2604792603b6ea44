// The model layer on real traces with nn.Module events (docs/layers.md): the module tree's GPU
// time reconciles exactly with the rank's, and the module types with the most kernel time are
// the ones a direct count over the file's raw events gives.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

const char* const kLosses[] = {"compute_inefficiency",  "memory_bound",    "unmodeled_kernels",
                               "exposed_communication", "pipeline_bubble", "host_bound_idle",
                               "data_movement"};

std::string ReadGzip(const fs::path& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

// The type of "nn.Module: Qwen2Attention_3": "Qwen2Attention".
std::string TypeOf(std::string_view instance) {
  std::size_t end = instance.find_last_not_of("0123456789");
  if (end != std::string_view::npos && end + 1 < instance.size() && instance[end] == '_') {
    instance = instance.substr(0, end);
  }
  return std::string(instance);
}

// Straight from the events: each GPU activity's duration, counted once for every module type
// whose range encloses its launch on the launching thread.
struct RawCount {
  std::map<std::string, double> type_us;
  std::map<std::string, std::set<std::string>> instances;  // type -> instance names
};

RawCount CountRaw(const std::string& text) {
  simdjson::dom::parser parser;
  element doc = parser.parse(text);
  struct Range {
    double start, end;
    std::string type;
  };
  std::map<std::int64_t, std::vector<Range>> modules;                          // by tid
  std::unordered_map<std::int64_t, std::pair<std::int64_t, double>> launches;  // correlation -> (tid, ts)
  std::vector<std::pair<std::int64_t, double>> activities;                     // (correlation, dur)
  RawCount raw;
  for (element e : doc["traceEvents"].get_array()) {
    std::string_view ph, cat, name;
    if (e["ph"].get(ph) || ph != "X" || e["cat"].get(cat)) continue;
    if (e["name"].get(name)) continue;
    double ts = 0, dur = 0;
    if (e["ts"].get(ts) || e["dur"].get(dur)) continue;
    std::int64_t tid = 0, correlation = -1;
    if (e["tid"].get(tid)) tid = -1;
    if (e["args"]["correlation"].get(correlation)) correlation = -1;
    if (cat == "python_function" && name.starts_with("nn.Module: ")) {
      std::string_view instance = name.substr(11);
      modules[tid].push_back({ts, ts + dur, TypeOf(instance)});
      raw.instances[TypeOf(instance)].insert(std::string(instance));
    } else if ((cat == "cuda_runtime" || cat == "cuda_driver") && correlation >= 0) {
      launches[correlation] = {tid, ts};
    } else if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") && correlation >= 0) {
      activities.emplace_back(correlation, dur);
    }
  }
  for (auto [correlation, dur] : activities) {
    auto l = launches.find(correlation);
    if (l == launches.end()) continue;
    auto [tid, ts] = l->second;
    std::set<std::string> types;
    for (const Range& r : modules[tid]) {
      if (r.start <= ts && ts < r.end) types.insert(r.type);
    }
    for (const std::string& type : types) raw.type_us[type] += dur;
  }
  return raw;
}

// The n types with the most time; types whose times agree to 1e-6 (one always inside the
// other, like Sequential and BasicBlock in a ResNet) are ordered by name.
std::vector<std::string> Largest(const std::vector<std::pair<std::string, double>>& by_time, std::size_t n) {
  auto sorted = by_time;
  double most = 0;
  for (const auto& [type, t] : sorted) most = std::max(most, t);
  auto key = [&](const auto& p) { return std::make_pair(-std::round(p.second / most * 1e6), p.first); };
  std::sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < std::min(n, sorted.size()); ++i) out.push_back(sorted[i].first);
  return out;
}

struct Case {
  std::string name, file;
  std::size_t compared_types;  // how many of the largest types must agree, in order
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
};

class LayersOnRealTraces : public ::testing::TestWithParam<Case> {};

TEST_P(LayersOnRealTraces, TreeReconcilesAndLargestTypesMatchTheRawEvents) {
  auto shared = SharedTraces();
  if (!shared)
    GTEST_SKIP() << "shared traces folder absent (PLASMIENT_SHARED_TRACES): real-trace tests skipped";
  const fs::path trace = *shared / GetParam().file;
  ASSERT_TRUE(fs::exists(trace)) << trace;
  const fs::path out = TempDir("layers") / "verdict.json";
  CommandResult run =
      RunCommand(PlasmientBinary() + " analyze " + trace.string() + " -q --json " + out.string());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  simdjson::dom::parser parser;
  element got;
  ASSERT_EQ(parser.load(out.string()).get(got), simdjson::SUCCESS);
  element rank = got["per_rank"].at(0);

  // Reconciliation: the top-level nodes partition the rank's GPU time, useful time and losses.
  const double wall = rank["kernel_span_s"].get_double();
  double gpu_time = 0, useful = 0;
  std::map<std::string, double> lost;
  std::size_t nodes = 0;
  element layers = rank["layers"];
  for (element node : layers.get_array()) {
    ++nodes;
    if (node["depth"].get_int64() != 0) continue;
    double t = node["gpu_time_s"].get_double();
    gpu_time += t;
    useful += t * node["achieved_fraction"].get_double();
    for (const char* l : kLosses) lost[l] += t * node["losses"][l].get_double();
  }
  ASSERT_GT(nodes, 10u);
  const double expected_gpu_time = wall - rank["idle_s"].get_double();
  EXPECT_NEAR(gpu_time, expected_gpu_time, 1e-9 * wall);
  EXPECT_NEAR(useful, rank["achieved_fraction"].get_double() * wall, 1e-9 * wall);
  for (const char* l : kLosses) {
    double expected = std::string_view(l) == "host_bound_idle" ? 0 : rank["losses"][l].get_double() * wall;
    EXPECT_NEAR(lost[l], expected, 1e-9 * wall) << l;
  }
  // A node holds at least its children.
  std::vector<double> node_time, children_time;
  for (element node : layers.get_array()) {
    node_time.push_back(node["gpu_time_s"].get_double());
    children_time.push_back(0);
    std::int64_t parent = node["parent"].get_int64();
    if (parent >= 0) children_time[static_cast<std::size_t>(parent)] += node_time.back();
  }
  for (std::size_t i = 0; i < node_time.size(); ++i)
    EXPECT_GE(node_time[i] * (1 + 1e-9) + 1e-15, children_time[i]);

  // The largest module types, and their instance counts, from the raw events.
  RawCount raw = CountRaw(ReadGzip(trace));
  ASSERT_FALSE(raw.type_us.empty());
  std::vector<std::pair<std::string, double>> raw_types(raw.type_us.begin(), raw.type_us.end()), got_types;
  std::map<std::string, std::int64_t> got_instances;
  for (element t : got["layer_types"].get_array()) {
    std::string type(t["type"].get_string().value());
    if (!raw.type_us.count(type)) continue;  // annotations and the catch-all nodes
    got_types.emplace_back(type, t["gpu_time_s"].get_double());
    got_instances[type] = t["instances"].get_int64();
  }
  const std::size_t n = GetParam().compared_types;
  EXPECT_EQ(Largest(got_types, n), Largest(raw_types, n));
  for (const std::string& type : Largest(raw_types, n)) {
    EXPECT_GE(got_instances[type], static_cast<std::int64_t>(raw.instances[type].size())) << type;
  }
  fs::remove_all(out.parent_path());
}

INSTANTIATE_TEST_SUITE_P(
    Traces, LayersOnRealTraces,
    ::testing::Values(Case{"qwen", "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 5},
                      Case{"falconsai", "tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz", 5},
                      Case{"timesformer",
                           "tracelens/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", 5},
                      Case{"resnet_checkpoint", "tracelens/mi300/resnet_act_checkpoint.json.gz", 4}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace plasmient::testing
