// Runs the roofline stage over the shared real traces: every deviceProperties entry must
// match a sensible device row, and every cpu_op's Input Dims must parse. Skips visibly when
// PLASMIENT_SHARED_TRACES is absent.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>

#include "roofline/device_table.h"
#include "roofline/op_args_parser.h"
#include "roofline/op_cost.h"

namespace plasmient::roofline {
namespace {

namespace fs = std::filesystem;

fs::path TracesDir() {
  const char* env = std::getenv("PLASMIENT_SHARED_TRACES");
  return env != nullptr ? fs::path(env) : fs::path("../shared/traces");
}

std::string ReadMaybeGzip(const fs::path& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

struct TraceFile {
  fs::path path;
  std::string rel;
};

std::vector<TraceFile> JsonTraces() {
  std::vector<TraceFile> files;
  const fs::path root = TracesDir();
  for (const char* sub : {"hta", "kineto", "tracelens"}) {
    if (!fs::exists(root / sub)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / sub)) {
      std::string name = e.path().filename().string();
      if (e.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz"))) {
        files.push_back({e.path(), fs::relative(e.path(), root).string()});
      }
    }
  }
  return files;
}

std::string_view StringOr(simdjson::dom::element e, std::string_view key) {
  std::string_view s;
  return e[key].get_string().get(s) == simdjson::SUCCESS ? s : std::string_view{};
}

std::int64_t IntOr(simdjson::dom::element e, std::string_view key) {
  std::int64_t v = 0;
  return e[key].get_int64().get(v) == simdjson::SUCCESS ? v : 0;
}

// The device row each trace's GPUs must map to (see MANIFEST.md for the names).
const std::map<std::string, std::string_view>& ExpectedDevices() {
  static const std::map<std::string, std::string_view> m = {
      {"hta/nccl_parser_config/nccl_data.json.gz", "a100_sxm_40gb"},
      {"hta/negative_queue_length_values_check/rank0.json.gz", "a100_sxm_80gb"},
      {"hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "v100_sxm2"},
      {"hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", "a100_sxm_40gb"},
      {"hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", "a100_sxm_40gb"},
      {"hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz", "a100_sxm_40gb"},
      {"hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "mi250_gcd"},
      {"hta/triton_example/triton_example.json.gz", "a100_sxm_40gb"},
      {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", "v100_sxm2"},
      {"kineto/docs/traces/after_fix_trace.json", "h100_sxm"},
      {"tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "h100_sxm"},
      {"tracelens/mi300/resnet_act_checkpoint.json.gz", "mi300x"},
      {"tracelens/torch_compile_triton/trace.json.gz", "mi300x"},
  };
  return m;
}

class SharedTraces : public ::testing::Test {
 protected:
  void SetUp() override {
    files_ = JsonTraces();
    if (files_.empty()) GTEST_SKIP() << "no traces under " << TracesDir() << " (set PLASMIENT_SHARED_TRACES)";
  }
  std::vector<TraceFile> files_;
};

TEST_F(SharedTraces, EveryDevicePropertiesEntryMatchesTheExpectedRow) {
  simdjson::dom::parser parser;
  int matched_files = 0;
  for (const TraceFile& f : files_) {
    simdjson::padded_string text(ReadMaybeGzip(f.path));
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << f.rel;
    simdjson::dom::array devices;
    if (doc["deviceProperties"].get_array().get(devices) != simdjson::SUCCESS || devices.size() == 0) continue;
    auto expected = ExpectedDevices().find(f.rel);
    for (simdjson::dom::element d : devices) {
      std::string_view name = StringOr(d, "name");
      auto m = MatchDevice(name, static_cast<int>(IntOr(d, "numSms")), static_cast<int>(IntOr(d, "computeMajor")),
                           static_cast<int>(IntOr(d, "computeMinor")), IntOr(d, "totalGlobalMem"));
      ASSERT_TRUE(m) << f.rel << ": " << m.error().message;
      ASSERT_NE(expected, ExpectedDevices().end()) << f.rel << " has devices but no expectation: " << m->reason;
      EXPECT_EQ(m->spec->key, expected->second) << f.rel << ": " << m->reason;
    }
    ++matched_files;
  }
  EXPECT_EQ(matched_files, static_cast<int>(ExpectedDevices().size()));
}

TEST_F(SharedTraces, EveryInputDimsParsesAndGemmAttentionConvOpsAreModeled) {
  simdjson::dom::parser parser;
  std::int64_t ops_with_dims = 0, parsed = 0, modeled = 0, heavy_named = 0, heavy_modeled = 0;
  std::map<std::string, std::int64_t> heavy_unmodeled;
  std::map<std::string, double> unmodeled_us;
  for (const TraceFile& f : files_) {
    simdjson::padded_string text(ReadMaybeGzip(f.path));
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << f.rel;
    simdjson::dom::array events;
    if (doc["traceEvents"].get_array().get(events) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element e : events) {
      std::string_view cat = StringOr(e, "cat");
      if (cat != "cpu_op" && cat != "Operator") continue;
      simdjson::dom::object args;
      if (e["args"].get_object().get(args) != simdjson::SUCCESS) continue;
      simdjson::dom::element dims;
      if (args["Input Dims"].get(dims) != simdjson::SUCCESS && args["Input dims"].get(dims) != simdjson::SUCCESS) continue;
      simdjson::dom::element types, concrete;
      std::string dims_text = simdjson::minify(dims);
      std::string types_text = args["Input type"].get(types) == simdjson::SUCCESS ? simdjson::minify(types) : "";
      std::string concrete_text =
          args["Concrete Inputs"].get(concrete) == simdjson::SUCCESS ? simdjson::minify(concrete) : "";
      ++ops_with_dims;
      OpDims parsed_dims;
      if (parsed_dims.Parse(dims_text)) {
        ++parsed;
      } else {
        ADD_FAILURE() << f.rel << ": Input Dims did not parse: " << dims_text.substr(0, 300);
      }
      std::string_view name = StringOr(e, "name");
      OpCost c = EstimateOp(name, dims_text, types_text, concrete_text);
      modeled += c.modeled();
      if (!c.modeled() && std::getenv("PLASMIENT_DUMP_UNMODELED")) {
        double dur = 0;
        if (e["dur"].get_double().get(dur) != simdjson::SUCCESS) dur = 0;
        unmodeled_us[std::string(name)] += dur;
      }
      // JIT graph records list every captured tensor; only a 3-argument linear is a linear.
      const bool jit_linear = name == "aten::linear" && parsed_dims.arg_count() > 3;
      const bool heavy_op = !jit_linear && (name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" ||
                            name == "aten::linear" || name == "aten::convolution" ||
                            name == "aten::cudnn_convolution" || name == "aten::miopen_convolution" ||
                            name == "aten::convolution_backward" || name == "aten::cudnn_convolution_backward" ||
                            name == "aten::_scaled_dot_product_flash_attention" ||
                            name == "aten::_flash_attention_forward");
      if (heavy_op) {
        ++heavy_named;
        if (c.modeled() && c.heavy && c.flops > 0) {
          ++heavy_modeled;
        } else {
          ++heavy_unmodeled[std::string(name) + " " + dims_text];
        }
      }
    }
  }
  EXPECT_GT(ops_with_dims, 90000);
  EXPECT_EQ(parsed, ops_with_dims);
  EXPECT_GT(heavy_named, 4000);
  EXPECT_EQ(heavy_modeled, heavy_named);
  for (const auto& [op, n] : heavy_unmodeled) ADD_FAILURE() << n << "× unmodeled " << op;
  std::vector<std::pair<double, std::string>> top;
  for (const auto& [op, us] : unmodeled_us) top.emplace_back(us, op);
  std::sort(top.rbegin(), top.rend());
  for (std::size_t i = 0; i < top.size() && i < 60; ++i) std::printf("unmodeled %10.0f us  %s\n", top[i].first, top[i].second.c_str());
  std::printf("cpu_ops with Input Dims: %lld, parsed %lld, modeled %lld; GEMM/conv/attention ops %lld\n",
              static_cast<long long>(ops_with_dims), static_cast<long long>(parsed),
              static_cast<long long>(modeled), static_cast<long long>(heavy_named));
}

}  // namespace
}  // namespace plasmient::roofline
