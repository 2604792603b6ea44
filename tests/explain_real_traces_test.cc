// `plasmient explain` on the dev traces (docs/explain.md): at the middle of a kernel chosen from
// the raw events (the longest GEMM of the single-rank Qwen trace, the longest NCCL kernel of a
// rank of trace_filter), the column names that kernel, its start from the window's (the earliest
// activity launched in the file), and the op whose External id it carries. Skipped when ../shared/traces is
// absent.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;

struct Kernel {
  std::string name, op;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t window_start_ns = 0;  // the earliest GPU activity launched in the file
};

std::int64_t Ns(double us) { return std::llround(us * 1e3); }

// The longest kernel whose name contains `part`, with the op of its External id.
std::optional<Kernel> LongestKernel(const fs::path& gz, std::string_view part) {
  CommandResult raw = RunCommand("gzip -dc '" + gz.string() + "'");
  if (raw.exit_code != 0) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(raw.out).get(doc) != simdjson::SUCCESS) return std::nullopt;
  // Activity without a launch in the file was queued before profiling began: outside the window
  // (docs/verdict.md, "The window").
  std::set<std::int64_t> launched;
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view cat;
    std::int64_t corr = -1;
    if (e["cat"].get(cat) != simdjson::SUCCESS || (cat != "cuda_runtime" && cat != "cuda_driver")) continue;
    if (e["args"]["correlation"].get(corr) == simdjson::SUCCESS) launched.insert(corr);
  }
  std::optional<Kernel> best;
  std::int64_t best_ext = -1, first = std::numeric_limits<std::int64_t>::max();
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view ph, cat, name;
    std::int64_t corr = -1;
    if (e["ph"].get(ph) != simdjson::SUCCESS || ph != "X" || e["cat"].get(cat) != simdjson::SUCCESS) continue;
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
    if (e["args"]["correlation"].get(corr) != simdjson::SUCCESS || !launched.contains(corr)) continue;
    double ts = e["ts"].get_double().value(), dur = e["dur"].get_double().value();
    first = std::min(first, Ns(ts));
    if (e["name"].get(name) != simdjson::SUCCESS) continue;
    if (cat != "kernel" || name.find(part) == std::string_view::npos) continue;
    if (best && Ns(ts + dur) - Ns(ts) <= best->end_ns - best->start_ns) continue;
    best = Kernel{std::string(name), "", Ns(ts), Ns(ts + dur), 0};
    if (e["args"]["External id"].get(best_ext) != simdjson::SUCCESS) best_ext = -1;
  }
  if (!best) return best;
  best->window_start_ns = first;
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view cat, name;
    std::int64_t ext = -2;
    if (e["cat"].get(cat) != simdjson::SUCCESS || cat != "cpu_op") continue;
    if (e["args"]["External id"].get(ext) == simdjson::SUCCESS && ext == best_ext &&
        e["name"].get(name) == 0) {
      best->op = std::string(name);
    }
  }
  return best;
}

void ExpectColumnNames(const std::string& inputs, const std::string& rank_flag, const Kernel& k) {
  std::int64_t mid = k.start_ns + (k.end_ns - k.start_ns) / 2;
  CommandResult c = RunCommand(PlasmientBinary() + " explain " + inputs + rank_flag + " --json --at " +
                               std::to_string(mid - k.window_start_ns) + "ns");
  ASSERT_EQ(c.exit_code, 0) << c.out;
  simdjson::dom::parser parser;
  simdjson::dom::element col;
  ASSERT_EQ(parser.parse(c.out).get(col), simdjson::SUCCESS) << c.out;
  bool named = false;
  for (auto r : col["kernels"].get_array()) {
    if (r["name"].get_string().value() != k.name) continue;
    named = true;
    // Epoch microseconds as doubles lose a few hundred nanoseconds: within 1 µs.
    EXPECT_NEAR(static_cast<double>(r["start_ns"].get_int64().value()),
                static_cast<double>(k.start_ns - k.window_start_ns), 1e3);
    if (!k.op.empty()) {
      EXPECT_EQ(r["op"].get_string().value(), k.op);
    }
  }
  EXPECT_TRUE(named) << k.name << "\n" << c.out.substr(0, 3000);
  std::string_view sentence = col["sentence"].get_string().value();
  EXPECT_EQ(sentence.rfind("at t = ", 0), 0u) << sentence;
}

TEST(ExplainRealTraces, SingleRankGemm) {
  auto traces = SharedTraces();
  if (!traces) GTEST_SKIP() << "no shared traces (PLASMIENT_SHARED_TRACES)";
  fs::path qwen = *traces / "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
  if (!fs::exists(qwen)) GTEST_SKIP() << qwen << " is absent";
  auto k = LongestKernel(qwen, "gemm");
  ASSERT_TRUE(k);
  ASSERT_FALSE(k->op.empty());
  ExpectColumnNames(qwen.string(), "", *k);
}

TEST(ExplainRealTraces, MultiRankCollective) {
  auto traces = SharedTraces();
  if (!traces) GTEST_SKIP() << "no shared traces (PLASMIENT_SHARED_TRACES)";
  fs::path dir = *traces / "hta/trace_filter";
  if (!fs::exists(dir / "sampled_rank-1.json.gz")) GTEST_SKIP() << dir << " is absent";
  auto k = LongestKernel(dir / "sampled_rank-1.json.gz", "nccl");
  ASSERT_TRUE(k);
  ExpectColumnNames(dir.string(), " --rank 1", *k);
}

// The verdict's first fix and `explain` at the instant it points to ("see it: plasmient explain
// ...") name the same cause: one classifier (docs/explain.md). On every dev trace whose first fix
// is host-bound idle, with its causes read from the timeline.
class FirstFixInstant : public ::testing::TestWithParam<const char*> {};

TEST_P(FirstFixInstant, ExplainNamesTheCauseTheFixActsOn) {
  auto traces = SharedTraces();
  if (!traces) GTEST_SKIP() << "no shared traces (PLASMIENT_SHARED_TRACES)";
  const fs::path path = *traces / GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const fs::path out =
      fs::temp_directory_path() / ("plasmient-first-fix-" + path.filename().string() + ".json");
  CommandResult a = RunCommand(PlasmientBinary() + " analyze '" + path.string() +
                               "' --brief --no-color --json '" + out.string() + "'");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  simdjson::dom::parser vparser;
  simdjson::dom::element verdict;
  ASSERT_EQ(vparser.load(out.string()).get(verdict), simdjson::SUCCESS);
  fs::remove(out);
  simdjson::dom::element fix = verdict["fixes"].at(0);
  ASSERT_EQ(fix["loss"].get_string().value(), "host_bound_idle");
  const std::string_view cause = fix["causes"].at(0)["cause"].get_string().value();
  const std::string marker = "see it: plasmient explain ";
  const std::size_t at = a.out.find(marker);
  ASSERT_NE(at, std::string::npos) << a.out;
  std::string args =
      a.out.substr(at + marker.size(), a.out.find_first_of("\u2502\n", at) - at - marker.size());
  if (const std::size_t bar = args.find("\u2502"); bar != std::string::npos) args.resize(bar);
  while (!args.empty() && args.back() == ' ') args.pop_back();
  const std::size_t sep = args.find(" --at ");
  ASSERT_NE(sep, std::string::npos) << args;
  CommandResult e =
      RunCommand(PlasmientBinary() + " explain '" + path.string() + "'" + args.substr(sep) + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.out;
  simdjson::dom::parser parser;
  simdjson::dom::element col;
  ASSERT_EQ(parser.parse(e.out).get(col), simdjson::SUCCESS) << e.out;
  EXPECT_EQ(col["loss"].get_string().value(), "host_bound_idle") << e.out;
  EXPECT_EQ(col["host_cause"].get_string().value(), cause) << col["sentence"].get_string().value();
}

INSTANTIATE_TEST_SUITE_P(
    DevTraces, FirstFixInstant,
    ::testing::Values("hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                      "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                      "hta/negative_queue_length_values_check/rank0.json.gz",
                      "hta/nccl_parser_config/nccl_data.json.gz",
                      "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz",
                      "tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz",
                      "tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));

}  // namespace
}  // namespace plasmient::testing
