// `plasmient explain` against `plasmient synth --scenario straggler` (docs/explain.md): instants
// are chosen from the generated trace events themselves (an exposed all-reduce wait on a fast
// rank, a GEMM, the longest host-bound gap) and the column read at each is checked against the
// events and synth's truth.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 4;

struct Event {
  std::string cat, name;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t seq = -1, correlation = -1, external_id = -1;
};

std::int64_t Ns(double us) { return std::llround(us * 1e3); }

std::string WholePercent(double pct) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", pct);
  return text;
}

// The complete events of one rank's trace.
std::vector<Event> ReadEvents(const fs::path& file) {
  std::string text = ReadFile(file);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(text);
  std::vector<Event> out;
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view ph;
    if (e["ph"].get(ph) != simdjson::SUCCESS || ph != "X") continue;
    Event ev;
    std::string_view cat, name;
    if (e["cat"].get(cat) == simdjson::SUCCESS) ev.cat = cat;
    if (e["name"].get(name) == simdjson::SUCCESS) ev.name = name;
    double ts = e["ts"].get_double().value(), dur = e["dur"].get_double().value();
    ev.start_ns = Ns(ts);
    ev.end_ns = Ns(ts + dur);
    auto args = e["args"];
    std::int64_t v = 0;
    if (args["Seq"].get(v) == simdjson::SUCCESS) ev.seq = v;
    if (args["correlation"].get(v) == simdjson::SUCCESS) ev.correlation = v;
    if (args["External id"].get(v) == simdjson::SUCCESS) ev.external_id = v;
    out.push_back(std::move(ev));
  }
  return out;
}

bool IsGpu(const Event& e) { return e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset"; }

struct Job {
  fs::path dir;
  std::string truth_text;
  simdjson::dom::parser truth_parser;
  simdjson::dom::element truth;
  std::vector<std::vector<Event>> events;  // by rank
  std::vector<std::int64_t> window_start_ns, offset_ns;
};

void MakeJob(Job& job) {
  job.dir = TempDir("explain");
  CommandResult s = RunCommand(PlasmientBinary() + " synth --scenario straggler --ranks " +
                               std::to_string(kRanks) + " --steps 4 -o " + job.dir.string());
  ASSERT_EQ(s.exit_code, 0) << s.out;
  job.truth_text = ReadFile(job.dir / "truth.json");
  ASSERT_EQ(job.truth_parser.parse(job.truth_text).get(job.truth), simdjson::SUCCESS);
  for (int r = 0; r < kRanks; ++r) {
    job.events.push_back(ReadEvents(job.dir / ("rank-" + std::to_string(r) + ".pt.trace.json")));
    job.window_start_ns.push_back(Ns(job.truth["ranks"].at(r)["window"]["start_us"].get_double().value()));
    job.offset_ns.push_back(job.truth["clock_offsets_ns"].at(r).get_int64().value());
  }
}

// `explain --json` at `offset_ns` from rank `rank`'s window start.
void Explain(const Job& job, int rank, std::int64_t offset_ns, simdjson::dom::parser& parser,
             std::string& text, simdjson::dom::element& out) {
  CommandResult c = RunCommand(PlasmientBinary() + " explain " + job.dir.string() + " --rank " +
                               std::to_string(rank) + " --at " + std::to_string(offset_ns) + "ns --json");
  ASSERT_EQ(c.exit_code, 0) << c.out;
  text = c.out;
  ASSERT_EQ(parser.parse(text).get(out), simdjson::SUCCESS) << text;
  ASSERT_EQ(out["t_ns"].get_int64().value(), offset_ns);
}

bool ComputeResidentAt(const std::vector<Event>& events, std::int64_t t) {
  return std::any_of(events.begin(), events.end(), [&](const Event& e) {
    return e.cat == "kernel" && e.seq < 0 && e.start_ns <= t && t < e.end_ns;
  });
}

TEST(ExplainSynth, AnExposedAllReduceWaitNamesTheStragglerAndItsLateness) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(MakeJob(job));
  const std::int64_t straggler = job.truth["stragglers"].at(0)["rank"].get_int64().value();
  const int fast = straggler == 0 ? 1 : 0;
  // Arrivals per Seq on the true clock: kernel start minus the rank's clock offset.
  std::map<std::int64_t, std::vector<std::int64_t>> arrivals;
  std::map<std::int64_t, const Event*> fast_kernel;
  for (int r = 0; r < kRanks; ++r) {
    for (const auto& e : job.events[r]) {
      if (e.cat != "kernel" || e.seq < 0 || e.name.find("AllReduce") == std::string::npos) continue;
      arrivals[e.seq].resize(kRanks);
      arrivals[e.seq][r] = e.start_ns - job.offset_ns[r];
      if (r == fast) fast_kernel[e.seq] = &e;
    }
  }
  // The all-reduce that keeps the fast rank waiting longest on the straggler, at an instant inside
  // that wait with no compute kernel resident on the fast rank.
  std::optional<std::int64_t> best_seq, best_t;
  std::int64_t best_wait = 0;
  for (const auto& [seq, a] : arrivals) {
    std::int64_t last = *std::max_element(a.begin(), a.end());
    if (last != a[straggler] || !fast_kernel.contains(seq)) continue;
    std::int64_t wait = last - a[fast];
    std::int64_t t = fast_kernel[seq]->start_ns + wait * 3 / 4;
    if (wait > best_wait && !ComputeResidentAt(job.events[fast], t))
      best_seq = seq, best_t = t, best_wait = wait;
  }
  ASSERT_TRUE(best_seq) << "no exposed all-reduce wait on rank " << fast;
  const auto& a = arrivals[*best_seq];
  std::vector<std::int64_t> others;
  for (int r = 0; r < kRanks; ++r) {
    if (r != straggler) others.push_back(a[r]);
  }
  std::sort(others.begin(), others.end());
  double median = others.size() % 2 ? static_cast<double>(others[others.size() / 2])
                                    : (others[others.size() / 2 - 1] + others[others.size() / 2]) / 2.0;
  double truth_late_ns = static_cast<double>(a[straggler]) - median;

  simdjson::dom::parser parser;
  std::string text;
  simdjson::dom::element col;
  ASSERT_NO_FATAL_FAILURE(Explain(job, fast, *best_t - job.window_start_ns[fast], parser, text, col));
  EXPECT_EQ(col["class"].get_string().value(), "collective") << text;
  EXPECT_EQ(col["loss"].get_string().value(), "exposed_communication") << text;
  auto cluster = col["cluster"];
  EXPECT_EQ(cluster["kind"].get_string().value(), "all_reduce") << text;
  EXPECT_EQ(cluster["seq"].get_int64().value(), *best_seq) << text;
  EXPECT_TRUE(cluster["waiting"].get_bool().value()) << text;
  auto waiting_for = cluster["waiting_for"].get_array();
  ASSERT_EQ(waiting_for.size(), 1u) << text;
  EXPECT_EQ(waiting_for.at(0).get_int64().value(), straggler);
  EXPECT_EQ(cluster["last_rank"].get_int64().value(), straggler);
  double late_ns = static_cast<double>(cluster["late_ns"].get_int64().value());
  EXPECT_NEAR(late_ns, truth_late_ns, 0.01 * truth_late_ns) << text;
  std::string_view sentence = col["sentence"].get_string().value();
  EXPECT_NE(sentence.find("waits in allreduce"), std::string_view::npos) << sentence;
  EXPECT_NE(sentence.find("for rank " + std::to_string(straggler)), std::string_view::npos) << sentence;
  fs::remove_all(job.dir);
}

TEST(ExplainSynth, AGemmInstantNamesTheGemmItsOpAndTheVerdictsRooflinePercent) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(MakeJob(job));
  const auto& ev = job.events[0];
  // The longest GEMM on rank 0, at its middle, alone on the device there.
  const Event* gemm = nullptr;
  for (const auto& e : ev) {
    if (e.cat != "kernel" || e.name.find("gemm") == std::string::npos) continue;
    std::int64_t mid = e.start_ns + (e.end_ns - e.start_ns) / 2;
    int resident = 0;
    for (const auto& o : ev) resident += IsGpu(o) && o.start_ns <= mid && mid < o.end_ns;
    if (resident == 1 && (!gemm || e.end_ns - e.start_ns > gemm->end_ns - gemm->start_ns)) gemm = &e;
  }
  ASSERT_NE(gemm, nullptr);
  std::string op;  // the op with the kernel's External id
  for (const auto& e : ev) {
    if (e.cat == "cpu_op" && e.external_id == gemm->external_id) op = e.name;
  }
  ASSERT_FALSE(op.empty());

  // The verdict's figure for that kernel: its row in the --perfetto vertical trace.
  fs::path perfetto = job.dir / "plasmient-trace.json";
  CommandResult a =
      RunCommand(PlasmientBinary() + " analyze " + job.dir.string() + " -q --perfetto " + perfetto.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  std::string ptext = ReadFile(perfetto);
  simdjson::dom::parser pparser;
  simdjson::dom::element pdoc = pparser.parse(ptext);
  std::optional<double> verdict_pct;
  for (auto e : pdoc["traceEvents"].get_array()) {
    std::int64_t pid = -1, corr = -1;
    if (e["pid"].get(pid) != simdjson::SUCCESS || pid != 0) continue;
    if (e["args"]["correlation"].get(corr) != simdjson::SUCCESS || corr != gemm->correlation) continue;
    verdict_pct = e["args"]["roofline_pct"].get_double().value();
  }
  ASSERT_TRUE(verdict_pct);

  simdjson::dom::parser parser;
  std::string text;
  simdjson::dom::element col;
  std::int64_t mid = gemm->start_ns + (gemm->end_ns - gemm->start_ns) / 2;
  ASSERT_NO_FATAL_FAILURE(Explain(job, 0, mid - job.window_start_ns[0], parser, text, col));
  auto kernels = col["kernels"].get_array();
  ASSERT_EQ(kernels.size(), 1u) << text;
  auto k = kernels.at(0);
  EXPECT_EQ(k["name"].get_string().value(), gemm->name);
  EXPECT_EQ(k["start_ns"].get_int64().value(), gemm->start_ns - job.window_start_ns[0]);
  EXPECT_EQ(k["op"].get_string().value(), op);
  EXPECT_NEAR(k["roofline_fraction"].get_double().value() * 100, *verdict_pct, 0.005) << text;
  std::string_view sentence = col["sentence"].get_string().value();
  EXPECT_NE(sentence.find("because the op is " + op), std::string_view::npos) << sentence;
  EXPECT_NE(sentence.find(WholePercent(*verdict_pct)), std::string_view::npos) << sentence;
  fs::remove_all(job.dir);
}

TEST(ExplainSynth, AHostBoundGapSaysNothingIsResidentAndNamesTheHostActivity) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(MakeJob(job));
  const auto& ev = job.events[0];
  std::vector<std::pair<std::int64_t, std::int64_t>> gpu;
  for (const auto& e : ev) {
    if (IsGpu(e)) gpu.emplace_back(e.start_ns, e.end_ns);
  }
  std::sort(gpu.begin(), gpu.end());
  std::int64_t end = gpu.front().second, gap_start = 0, gap_end = 0;
  for (auto [s, e] : gpu) {
    if (s > end && s - end > gap_end - gap_start) gap_start = end, gap_end = s;
    end = std::max(end, e);
  }
  ASSERT_GT(gap_end, gap_start);
  std::int64_t t = gap_start + (gap_end - gap_start) / 2;
  // The innermost host range running at t (the latest to start), steps aside.
  const Event* host = nullptr;
  for (const auto& e : ev) {
    bool host_kind =
        e.cat == "cpu_op" || e.cat == "user_annotation" || e.cat == "cuda_runtime" || e.cat == "cuda_driver";
    if (!host_kind || e.name.starts_with("ProfilerStep#") || e.start_ns > t || e.end_ns <= t) continue;
    if (!host || e.start_ns > host->start_ns) host = &e;
  }
  ASSERT_NE(host, nullptr);

  simdjson::dom::parser parser;
  std::string text;
  simdjson::dom::element col;
  ASSERT_NO_FATAL_FAILURE(Explain(job, 0, t - job.window_start_ns[0], parser, text, col));
  EXPECT_EQ(col["kernels"].get_array().size(), 0u) << text;
  EXPECT_TRUE(col["class"].is_null()) << text;
  EXPECT_EQ(col["loss"].get_string().value(), "host_bound_idle");
  EXPECT_EQ(col["gap"]["start_ns"].get_int64().value(), gap_start - job.window_start_ns[0]);
  EXPECT_EQ(col["gap"]["end_ns"].get_int64().value(), gap_end - job.window_start_ns[0]);
  std::string_view sentence = col["sentence"].get_string().value();
  EXPECT_NE(sentence.find("because no kernel is resident"), std::string_view::npos) << sentence;
  EXPECT_NE(sentence.find("because the host is in " + host->name), std::string_view::npos) << sentence;
  fs::remove_all(job.dir);
}

// The verdict box points at one instant of the first fix's loss: running that command shows it.
TEST(ExplainSynth, TheFirstFixPointsAtAnInstantOfItsLoss) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(MakeJob(job));
  fs::path out = job.dir / "plasmient-verdict.json";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + job.dir.string() +
                               " --brief --no-color --json " + out.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  const std::string marker = "see it: plasmient explain ";
  std::size_t at = a.out.find(marker);
  ASSERT_NE(at, std::string::npos) << a.out;
  std::size_t end = a.out.find_first_of("│\n", at);
  std::string args = a.out.substr(at + marker.size(), end - at - marker.size());
  while (!args.empty() && args.back() == ' ') args.pop_back();
  EXPECT_EQ(args.rfind(job.dir.string() + " --at ", 0), 0u) << args;
  std::string verdict_text = ReadFile(out);
  simdjson::dom::parser vparser;
  simdjson::dom::element verdict = vparser.parse(verdict_text);
  std::string_view first_loss = verdict["fixes"].at(0)["loss"].get_string().value();

  CommandResult e = RunCommand(PlasmientBinary() + " explain " + args + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.out;
  simdjson::dom::parser parser;
  simdjson::dom::element col = parser.parse(e.out);
  EXPECT_EQ(col["loss"].get_string().value(), first_loss) << e.out;
  fs::remove_all(job.dir);
}

// host-causes: the truth's largest cause of host-bound idle is the allocator (cudaFree/cudaMalloc
// between the ops), while the longest gaps are the data loader's. The first fix acts on the
// allocator, and `explain` at the instant it points to names the allocator too: the instant is one
// of the fix's cause, and explain reads the verdict's own attribution.
TEST(ExplainSynth, TheFirstFixInstantIsOneOfItsCause) {
  const fs::path dir = TempDir("explain_causes");
  CommandResult s = RunCommand(
      PlasmientBinary() + " synth --scenario host-causes --ranks 2 --steps 3 --seed 21 -o " + dir.string());
  ASSERT_EQ(s.exit_code, 0) << s.out;
  simdjson::dom::parser tparser;
  simdjson::dom::element truth;
  ASSERT_EQ(tparser.load((dir / "truth.json").string()).get(truth), simdjson::SUCCESS);
  std::string top;
  double top_s = 0;
  for (auto [cause, seconds] : truth["host_idle_causes"].get_object()) {
    if (seconds.get_double().value() > top_s) top_s = seconds.get_double().value(), top = std::string(cause);
  }
  ASSERT_EQ(top, "allocator");
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + dir.string() + " --brief --no-color");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  const std::string marker = "see it: plasmient explain ";
  const std::size_t at = a.out.find(marker);
  ASSERT_NE(at, std::string::npos) << a.out;
  std::string args = a.out.substr(at + marker.size(), a.out.find_first_of("│\n", at) - at - marker.size());
  while (!args.empty() && args.back() == ' ') args.pop_back();
  CommandResult e = RunCommand(PlasmientBinary() + " explain " + args + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.out;
  simdjson::dom::parser parser;
  simdjson::dom::element col = parser.parse(e.out);
  EXPECT_EQ(col["host_cause"].get_string().value(), top) << col["sentence"].get_string().value();
  EXPECT_NE(col["sentence"].get_string().value().find("cause: allocator"), std::string_view::npos);
  fs::remove_all(dir);
}

// Bad instants and ranks: one line naming what exists, exit 2.
TEST(ExplainSynth, BadInstantsAndRanksSayWhatExists) {
  Job job;
  ASSERT_NO_FATAL_FAILURE(MakeJob(job));
  std::string base = PlasmientBinary() + " explain " + job.dir.string();
  CommandResult far = RunCommand(base + " --at 100s");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_NE(far.out.find("outside rank 0's window, which runs from 0 to"), std::string::npos) << far.out;
  CommandResult rank = RunCommand(base + " --at 1ms --rank 7");
  EXPECT_EQ(rank.exit_code, 2);
  EXPECT_NE(rank.out.find("the ranks are 0, 1, 2, 3"), std::string::npos) << rank.out;
  CommandResult step = RunCommand(base + " --at step:99+1ms");
  EXPECT_EQ(step.exit_code, 2);
  EXPECT_NE(step.out.find("no step 99: its steps are 3, 4, 5, 6"), std::string::npos) << step.out;
  CommandResult unit = RunCommand(base + " --at 12");
  EXPECT_EQ(unit.exit_code, 2);
  EXPECT_NE(unit.out.find("give a time with its unit"), std::string::npos) << unit.out;
  EXPECT_EQ(std::count(unit.out.begin(), unit.out.end(), '\n'), 1) << unit.out;
  fs::remove_all(job.dir);
}

}  // namespace
}  // namespace plasmient::testing
