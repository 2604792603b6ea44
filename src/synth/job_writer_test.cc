#include "synth/job_writer.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>

#include "synth/program_builder.h"

namespace plasmient::synth {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / fmt::format("plasmient_synth_{}_{}", name, ::getpid());
  fs::remove_all(dir);
  return dir;
}

std::string ReadFile(const fs::path& path) {
  if (path.extension() == ".gz") {
    gzFile gz = gzopen(path.c_str(), "rb");
    std::string out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    gzclose(gz);
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SynthConfig Small(Scenario scenario) {
  SynthConfig c;
  c.scenario = scenario;
  c.ranks = 3;
  c.steps = 2;
  c.layers = 3;
  c.buckets = 2;
  c.hidden = 1024;
  c.heads = 8;
  c.seq_len = 1024;
  c.micro_batch = 1;
  c.microbatches = 4;
  return c;
}

TimeNs ParseTsNs(simdjson::dom::element e) {
  // ts is written with exactly three decimals: read it as text-free integer ns.
  const double us = e.get_double().value();
  return static_cast<TimeNs>(std::llround(us * 1000.0));
}

struct RankCheck {
  std::map<std::pair<std::string, std::int64_t>, TimeNs> collective_end_ns;  // (pg, seq) -> end
};

// Parses one rank's trace and checks it is well-formed; returns its collectives.
RankCheck CheckRankTrace(const fs::path& path, const SynthConfig& config, int rank, TimeNs clock_offset_ns) {
  RankCheck check;
  const std::string text = ReadFile(path);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  auto error = parser.parse(text).get(doc);
  EXPECT_FALSE(error) << path << ": " << simdjson::error_message(error);
  if (error) return check;
  EXPECT_EQ(doc["schemaVersion"].get_int64().value(), 1);
  EXPECT_EQ(doc["distributedInfo"]["rank"].get_int64().value(), rank);
  EXPECT_EQ(doc["distributedInfo"]["world_size"].get_int64().value(), config.ranks);
  EXPECT_EQ(std::string_view(doc["deviceProperties"].at(0)["name"].get_string().value()),
            FindGpu(config.gpu)->driver_name);
  std::map<std::int64_t, TimeNs> launch_ns;  // correlation -> launch ts
  std::vector<std::pair<TimeNs, TimeNs>> steps;
  std::vector<TimeNs> launches;
  struct Gpu {
    std::int64_t correlation;
    TimeNs start;
  };
  std::vector<Gpu> gpu;
  std::set<std::int64_t> op_ids_with_shapes, op_ids;
  std::vector<std::pair<std::int64_t, std::string>> kernel_ext;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    std::string_view cat;
    if (e["cat"].get(cat)) continue;
    std::string_view name = e["name"].get_string().value();
    if (e["ph"].get_string().value() != "X") continue;
    const TimeNs ts = ParseTsNs(e["ts"]);
    const TimeNs dur = ParseTsNs(e["dur"]);
    simdjson::dom::element args = e["args"];
    if (cat == "user_annotation" && name.starts_with("ProfilerStep#")) steps.emplace_back(ts, ts + dur);
    if (cat == "cpu_op") {
      const std::int64_t id = args["External id"].get_int64().value();
      op_ids.insert(id);
      simdjson::dom::element dims;
      if (!args["Input Dims"].get(dims)) op_ids_with_shapes.insert(id);
    }
    if (cat == "cuda_runtime" || cat == "cuda_driver") {
      launch_ns[args["correlation"].get_int64().value()] = ts;
      if (name == "cudaLaunchKernel" || name == "cuLaunchKernel" || name.starts_with("cudaMem"))
        launches.push_back(ts);
    }
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      gpu.push_back({args["correlation"].get_int64().value(), ts});
      std::int64_t ext = 0;
      if (cat == "kernel" && !args["External id"].get(ext)) kernel_ext.emplace_back(ext, std::string(name));
      if (cat == "kernel" && !name.starts_with("triton_")) {
        EXPECT_GT(ext, 0) << name;
      }
      std::string_view coll;
      if (!args["Collective name"].get(coll) && coll != "send" && coll != "recv") {
        const std::string pg(args["Process Group Name"].get_string().value());
        check.collective_end_ns[{pg, args["Seq"].get_int64().value()}] = ts + dur - clock_offset_ns;
      }
    }
  }
  // Every GPU activity has a launch with its correlation, and starts after it.
  for (const Gpu& g : gpu) {
    auto it = launch_ns.find(g.correlation);
    EXPECT_NE(it, launch_ns.end()) << "correlation " << g.correlation;
    if (it != launch_ns.end()) {
      EXPECT_LT(it->second, g.start);
    }
  }
  // Steps follow each other and every launch lies inside one.
  EXPECT_EQ(steps.size(), static_cast<std::size_t>(config.steps));
  std::sort(steps.begin(), steps.end());
  for (std::size_t i = 1; i < steps.size(); ++i) EXPECT_LE(steps[i - 1].second, steps[i].first);
  for (TimeNs t : launches) {
    EXPECT_TRUE(
        std::any_of(steps.begin(), steps.end(), [&](auto s) { return s.first <= t && t < s.second; }));
  }
  // Kernels launched by an op name an op; compute kernels' ops have shapes unless they are
  // the deliberately unmodeled extension op.
  for (const auto& [ext, name] : kernel_ext) {
    EXPECT_TRUE(op_ids.count(ext)) << name;
    if (!name.starts_with("ncclDevKernel") && !name.starts_with("void fused_rotary")) {
      EXPECT_TRUE(op_ids_with_shapes.count(ext)) << name;
    }
  }
  return check;
}

struct TruthCheck {
  std::vector<TimeNs> clock_offsets_ns;
  std::vector<double> bubbles;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
};

void CheckTruth(const fs::path& dir, const SynthConfig& config, TruthCheck& t) {
  const std::string text = ReadFile(dir / "truth.json");
  ASSERT_FALSE(t.parser.parse(text).get(t.doc));
  EXPECT_EQ(std::string_view(t.doc["schema"].get_string().value()), "plasmient.truth/1");
  simdjson::dom::array ranks = t.doc["ranks"].get_array();
  ASSERT_EQ(ranks.size(), static_cast<std::size_t>(config.ranks));
  for (simdjson::dom::element r : ranks) {
    double sum = r["achieved_fraction"].get_double().value();
    for (auto [key, value] : r["losses"].get_object()) sum += value.get_double().value();
    EXPECT_NEAR(sum, 1.0, 1e-9);
    double step_span = 0;
    for (simdjson::dom::element s : r["steps"].get_array()) {
      double step_sum = s["achieved_fraction"].get_double().value();
      for (auto [key, value] : s["losses"].get_object()) step_sum += value.get_double().value();
      EXPECT_NEAR(step_sum, 1.0, 1e-9);
      step_span += s["kernel_span_s"].get_double().value();
    }
    EXPECT_NEAR(step_span, r["kernel_span_s"].get_double().value(), 1e-9);
    t.clock_offsets_ns.push_back(r["clock_offset_ns"].get_int64().value());
    t.bubbles.push_back(r["losses"]["pipeline_bubble"].get_double().value());
  }
}

class ScenarioTest : public ::testing::TestWithParam<Scenario> {};

TEST_P(ScenarioTest, WritesWellFormedTracesAndConsistentTruth) {
  SynthConfig config = Small(GetParam());
  if (GetParam() == Scenario::kPipeline) config.ranks = 3;
  const fs::path dir = TempDir(std::string(ScenarioName(GetParam())));
  Progress progress;
  ASSERT_TRUE(WriteJob(config, dir.string(), &progress)) << ScenarioName(GetParam());
  EXPECT_GT(progress.gpu_activities, 0);
  TruthCheck truth;
  CheckTruth(dir, config, truth);
  std::vector<RankCheck> ranks;
  for (int r = 0; r < config.ranks; ++r) {
    ranks.push_back(CheckRankTrace(dir / RankFileName(config, r), config, r, truth.clock_offsets_ns[r]));
  }
  // Collectives: every rank holds the same (group, seq) set, ending together on the true clock.
  const bool has_collectives = GetParam() != Scenario::kPipeline && GetParam() != Scenario::kDecode &&
                               GetParam() != Scenario::kHostbound;
  EXPECT_EQ(!ranks[0].collective_end_ns.empty(), has_collectives);
  for (int r = 1; r < config.ranks; ++r) {
    ASSERT_EQ(ranks[r].collective_end_ns.size(), ranks[0].collective_end_ns.size());
    for (const auto& [key, end] : ranks[0].collective_end_ns) {
      auto it = ranks[r].collective_end_ns.find(key);
      ASSERT_NE(it, ranks[r].collective_end_ns.end()) << key.first << " seq " << key.second;
      EXPECT_LE(std::llabs(it->second - end), 2) << "seq " << key.second;
    }
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(AllScenarios, ScenarioTest,
                         ::testing::Values(Scenario::kDdp, Scenario::kStraggler, Scenario::kPipeline,
                                           Scenario::kDecode, Scenario::kHostbound, Scenario::kMoe,
                                           Scenario::kClockOffset),
                         [](const auto& info) {
                           std::string name(ScenarioName(info.param));
                           std::erase(name, '-');
                           return name;
                         });

TEST(JobWriterTest, SameSeedSameBytesOtherSeedOtherBytes) {
  SynthConfig config = Small(Scenario::kMoe);
  const fs::path a = TempDir("seed_a"), b = TempDir("seed_b"), c = TempDir("seed_c");
  ASSERT_TRUE(WriteJob(config, a.string(), nullptr));
  ASSERT_TRUE(WriteJob(config, b.string(), nullptr));
  config.seed = 2;
  ASSERT_TRUE(WriteJob(config, c.string(), nullptr));
  for (const char* file : {"rank-1.pt.trace.json", "truth.json"}) {
    std::string ta = ReadFile(a / file), tb = ReadFile(b / file), tc = ReadFile(c / file);
    // traceName holds the path; compare the rest.
    auto strip = [](std::string s, const fs::path& dir) {
      for (std::size_t p; (p = s.find(dir.string())) != std::string::npos;) s.erase(p, dir.string().size());
      return s;
    };
    EXPECT_EQ(strip(ta, a), strip(tb, b)) << file;
    EXPECT_NE(strip(ta, a), strip(tc, c)) << file;
  }
  fs::remove_all(a);
  fs::remove_all(b);
  fs::remove_all(c);
}

TEST(JobWriterTest, GzipTracesDecompressToValidJson) {
  SynthConfig config = Small(Scenario::kDdp);
  config.ranks = 2;
  config.gzip = true;
  const fs::path dir = TempDir("gzip");
  ASSERT_TRUE(WriteJob(config, dir.string(), nullptr));
  ASSERT_TRUE(fs::exists(dir / "rank-1.pt.trace.json.gz"));
  CheckRankTrace(dir / "rank-1.pt.trace.json.gz", config, 1, 0);
  fs::remove_all(dir);
}

TEST(JobWriterTest, StragglerCausesTheWaitAndOthersSeeIt) {
  SynthConfig config = Small(Scenario::kStraggler);
  config.ranks = 4;
  config.straggler_factor = 1.6;
  const fs::path dir = TempDir("straggler");
  ASSERT_TRUE(WriteJob(config, dir.string(), nullptr));
  TruthCheck truth;
  CheckTruth(dir, config, truth);
  simdjson::dom::array stragglers = truth.doc["stragglers"].get_array();
  ASSERT_GT(stragglers.size(), 0u);
  EXPECT_EQ(stragglers.at(0)["rank"].get_int64().value(), 3);
  double exposed[4];
  int i = 0;
  for (simdjson::dom::element r : truth.doc["ranks"].get_array()) {
    exposed[i++] = r["losses"]["exposed_communication"].get_double().value();
  }
  for (int r = 0; r < 3; ++r) EXPECT_GT(exposed[r], exposed[3] + 0.05) << r;
  fs::remove_all(dir);
}

TEST(JobWriterTest, ClockOffsetsAreKnownAndBounded) {
  SynthConfig config = Small(Scenario::kClockOffset);
  config.clock_offset_ms = 3;
  const fs::path dir = TempDir("clock");
  ASSERT_TRUE(WriteJob(config, dir.string(), nullptr));
  TruthCheck truth;
  CheckTruth(dir, config, truth);
  EXPECT_EQ(truth.clock_offsets_ns[0], 0);
  for (int r = 1; r < config.ranks; ++r) {
    EXPECT_NE(truth.clock_offsets_ns[r], 0);
    EXPECT_LE(std::llabs(truth.clock_offsets_ns[r]), 3'000'000);
  }
  fs::remove_all(dir);
}

TEST(JobWriterTest, PipelineBubbleIsCloseToTheIdealForUniformMicrobatches) {
  SynthConfig config = Small(Scenario::kPipeline);
  config.ranks = 4;
  config.layers = 4;
  config.hidden = 4096;
  config.heads = 32;
  config.seq_len = 2048;
  config.microbatches = 12;
  config.steps = 3;
  const fs::path dir = TempDir("pipeline");
  ASSERT_TRUE(WriteJob(config, dir.string(), nullptr));
  TruthCheck truth;
  CheckTruth(dir, config, truth);
  const double ideal = 3.0 / (12.0 + 3.0);
  EXPECT_NEAR(truth.doc["pipeline"]["ideal_bubble"].get_double().value(), ideal, 1e-12);
  double mean = 0;
  for (double b : truth.bubbles) {
    EXPECT_NEAR(b, ideal, 0.06);
    mean += b / 4;
  }
  EXPECT_NEAR(mean, ideal, 0.04);
  fs::remove_all(dir);
}

TEST(JobWriterTest, DecodeAchievedFractionClimbsWithBatch) {
  double achieved[2];
  int i = 0;
  for (int batch : {1, 32}) {
    SynthConfig config = Small(Scenario::kDecode);
    config.ranks = 1;
    config.batch = batch;
    const fs::path dir = TempDir(fmt::format("decode{}", batch));
    ASSERT_TRUE(WriteJob(config, dir.string(), nullptr));
    TruthCheck truth;
    CheckTruth(dir, config, truth);
    achieved[i++] = truth.doc["job"]["achieved_fraction"].get_double().value();
    // Every decode kernel sits under the ridge: no compute-inefficiency loss at all.
    EXPECT_GT(truth.doc["job"]["losses"]["memory_bound"].get_double().value(), 0.1);
    EXPECT_EQ(truth.doc["job"]["losses"]["compute_inefficiency"].get_double().value(), 0.0);
    fs::remove_all(dir);
  }
  EXPECT_GT(achieved[1], 8 * achieved[0]);
}

// Kernels never beat the peak, and GEMM/attention intensities sit clearly on one side of
// every supported device's ridge point, so the loss category cannot flip on rounding.
// --host-stall: CAUSE:MS of a cause synth can record, a length in (0, 1000] ms; the stalls go
// into every step, each in its cause's range, and overhead only into Kineto files.
TEST(HostStallTest, ParsedChecksAndPlacedOncePerStep) {
  auto s = ParseHostStall("allocator:2.5");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->cause, "allocator");
  EXPECT_DOUBLE_EQ(s->ms, 2.5);
  EXPECT_FALSE(ParseHostStall("allocator"));
  EXPECT_FALSE(ParseHostStall("allocator:"));
  EXPECT_FALSE(ParseHostStall("allocator:2ms"));
  EXPECT_FALSE(ParseHostStall("allocator:0"));
  EXPECT_FALSE(ParseHostStall("allocator:5000"));
  auto bad = ParseHostStall("sync:1");  // a sync's idle is the GPU's own work: not a stall
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("one of allocator"), std::string::npos) << bad.error().message;

  SynthConfig c;
  c.scenario = Scenario::kHostbound;
  c.host_stalls = {{"host_collective", 3}, {"profiler_overhead", 1}};
  ASSERT_TRUE(Validate(c));
  const Program p = BuildProgram(c, *FindGpu(c.gpu), 0, 0);
  std::vector<std::string_view> calls;
  for (const Item& i : p.items) {
    if (i.kind != OpKind::kHostStall || i.cause == nullptr) continue;
    calls.emplace_back(i.host_call);
    if (calls.back() == "gloo:all_reduce") {
      EXPECT_GE(i.gpu_ns, 2'400'000);
      EXPECT_LE(i.gpu_ns, 3'600'000);
    }
  }
  EXPECT_EQ(calls, (std::vector<std::string_view>{"gloo:all_reduce", "Buffer Flush"}));
  c.format = TraceFormat::kNative;
  EXPECT_FALSE(Validate(c));
  c.host_stalls = {{"host_collective", 3}};
  EXPECT_TRUE(Validate(c));
}

TEST(ProgramBuilderTest, KernelsRespectPeakAndStayAwayFromTheRidge) {
  for (const GpuSpec& gpu : GpuTable()) {
    const double ridge = gpu.bf16_flops_per_s / gpu.mem_bytes_per_s;
    for (Scenario s :
         {Scenario::kDdp, Scenario::kPipeline, Scenario::kDecode, Scenario::kHostbound, Scenario::kMoe}) {
      SynthConfig config;  // defaults
      config.scenario = s;
      config.gpu = std::string(gpu.key);
      config.ranks = s == Scenario::kPipeline ? 4 : 2;
      for (int r = 0; r < config.ranks; ++r) {
        const Program p = BuildProgram(config, gpu, r, 0);
        for (const Item& item : p.items) {
          if (item.flop_model) {
            EXPECT_GE(static_cast<double>(item.gpu_ns) * 1e-9, item.flops / gpu.bf16_flops_per_s);
            const double ai = item.flops / item.bytes;
            EXPECT_TRUE(ai < 0.7 * ridge || ai > 1.4 * ridge) << gpu.key << " " << ScenarioName(s) << " kind "
                                                              << static_cast<int>(item.kind) << " ai " << ai;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace plasmient::synth
