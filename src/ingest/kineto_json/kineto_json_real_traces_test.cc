// Every Kineto trace in the shared trace set reads without error, and its tables agree with
// the per-file figures of manifest.json (written by an independent script).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <simdjson.h>

#include "ingest/kineto_json/kineto_json_reader.h"
#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

using model::CpuOpKind;
using model::GpuKind;

std::int64_t Int(simdjson::dom::element e, const char* key) {
  std::int64_t v = -1;
  if (e[key].get_int64().get(v) != simdjson::SUCCESS) return -1;
  return v;
}

std::int64_t Cat(simdjson::dom::element e, const char* cat) {
  std::int64_t v = 0;
  if (e["cats"][cat].get_int64().get(v) != simdjson::SUCCESS) return 0;
  return v;
}

TEST(KinetoJsonRealTracesTest, CountsMatchTheManifest) {
  auto dir = testing::SharedTraces();
  if (dir.empty()) GTEST_SKIP() << "shared traces not found: set PLASMIENT_SHARED_TRACES";
  simdjson::dom::parser parser;
  simdjson::dom::element manifest;
  ASSERT_EQ(parser.load((dir / "manifest.json").string()).get(manifest), simdjson::SUCCESS);
  int checked = 0;
  for (simdjson::dom::element e : manifest.get_array()) {
    std::string_view format, file;
    if (e["format"].get_string().get(format) || !format.starts_with("kineto-json")) continue;
    ASSERT_EQ(e["file"].get_string().get(file), simdjson::SUCCESS);
    SCOPED_TRACE(std::string(file));
    auto trace = ReadKinetoJson((dir / file).string());
    ASSERT_TRUE(trace.has_value()) << trace.error().message;
    const model::Trace& t = *trace;
    ++checked;

    EXPECT_EQ(t.info.format, format);
    EXPECT_EQ(t.info.events, Int(e, "events"));
    EXPECT_EQ(t.info.input_bytes, Int(e, "uncompressed_bytes"));

    std::map<GpuKind, std::int64_t> gpu_kinds;
    for (GpuKind k : t.gpu.kind) ++gpu_kinds[k];
    EXPECT_EQ(gpu_kinds[GpuKind::kKernel], Int(e, "kernels"));
    EXPECT_EQ(gpu_kinds[GpuKind::kMemcpy], Cat(e, "gpu_memcpy") + Cat(e, "Memcpy"));
    EXPECT_EQ(gpu_kinds[GpuKind::kMemset], Cat(e, "gpu_memset") + Cat(e, "Memset"));
    EXPECT_EQ(static_cast<std::int64_t>(t.api.size()), Int(e, "runtime_events"));
    // Module ranges are the python_function events named "nn.Module: …"; the rest of the
    // python_function events are skipped.
    std::int64_t modules = 0;
    for (CpuOpKind k : t.cpu.kind) modules += k == CpuOpKind::kModule;
    EXPECT_EQ(static_cast<std::int64_t>(t.cpu.size()) - modules,
              Cat(e, "cpu_op") + Cat(e, "Operator") + Cat(e, "user_annotation"));
    EXPECT_LE(modules, Cat(e, "python_function"));
    EXPECT_EQ(modules + t.quality.Get(model::Dq::kPythonFunctionsSkipped), Cat(e, "python_function"));

    // Profiler steps, by number.
    std::set<std::int64_t> steps;
    for (std::size_t i = 0; i < t.cpu.size(); ++i) {
      if (t.cpu.kind[i] == CpuOpKind::kStep) steps.insert(t.cpu.step[i]);
    }
    EXPECT_EQ(static_cast<std::int64_t>(steps.size()), Int(e, "profiler_steps"));
    simdjson::dom::array names;
    if (e["profiler_step_names"].get_array().get(names) == simdjson::SUCCESS) {
      for (simdjson::dom::element n : names) {
        std::string_view name = n.get_string().value_unsafe();
        if (name == "...") continue;
        EXPECT_TRUE(steps.contains(std::stoll(std::string(name.substr(name.find('#') + 1))))) << name;
      }
    }

    // Collectives: one row per NCCL kernel; those with args carry sizes.
    std::int64_t on_gpu = 0, on_gpu_with_args = 0, on_cpu = 0;
    for (std::size_t i = 0; i < t.collectives.size(); ++i) {
      if (t.collectives.gpu[i] >= 0) {
        ++on_gpu;
        if (t.collectives.in_nelems[i] >= 0) ++on_gpu_with_args;
        EXPECT_TRUE(t.Str(t.gpu.name[t.collectives.gpu[i]]).starts_with("nccl"));
      } else {
        ++on_cpu;
        std::string_view op = t.Str(t.cpu.name[t.collectives.cpu_op[i]]);
        EXPECT_TRUE(op == "record_param_comms" || op.starts_with("nccl:")) << op;
      }
    }
    EXPECT_EQ(on_gpu, Int(e, "nccl_kernels"));
    EXPECT_EQ(on_gpu_with_args, Int(e, "coll_kernel_args"));
    EXPECT_EQ(on_cpu > 0, Int(e, "record_param_comms") > 0);

    // Devices, distributed info, time base.
    EXPECT_EQ(static_cast<std::int64_t>(t.devices.size()),
              std::max<std::int64_t>(0, Int(e, "deviceProperties")));
    simdjson::dom::array gpus;
    if (e["gpu"].get_array().get(gpus) == simdjson::SUCCESS && !t.devices.empty()) {
      std::string_view gpu = (*gpus.begin()).get_string().value_unsafe();
      bool found = false;
      for (const auto& d : t.devices) found |= d.name == gpu;
      EXPECT_TRUE(found) << gpu;
    }
    simdjson::dom::element dist;
    if (e["distributedInfo"].get(dist) == simdjson::SUCCESS && dist.is_object()) {
      EXPECT_EQ(t.info.rank, Int(dist, "rank"));
      EXPECT_EQ(t.info.world_size, Int(dist, "world_size"));
    } else {
      EXPECT_EQ(t.info.rank, -1);
    }
    EXPECT_EQ(t.quality.Get(model::Dq::kMalformedEvent), 0);
    EXPECT_EQ(t.quality.Get(model::Dq::kAmbiguousTimebase), 0);
    // Every timestamp is on the epoch clock after the base shift (2020..2030).
    for (TimeNs ts : t.cpu.start_ns) {
      ASSERT_GT(ts, 1'577'836'800LL * kNsPerS);
      ASSERT_LT(ts, 1'893'456'000LL * kNsPerS);
    }
  }
  EXPECT_GE(checked, 17);
}

}  // namespace
}  // namespace plasmient::ingest
