// Every real trace in shared/traces analyzes (or says plainly it has no GPU activity), and the
// per-rank time accounting agrees with the peer analyzer's reference figures.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_SHARED_TRACES(var)                                                     \
  auto var = SharedTraces();                                                           \
  if (!var)                                                                            \
  GTEST_SKIP() << "shared traces folder absent (PLASMIENT_SHARED_TRACES): real-trace " \
                  "tests skipped"

struct Analysis {
  CommandResult run;
  std::string json;
};

Analysis Analyze(const std::string& inputs, const std::string& flags) {
  fs::path out = TempDir("real") / "verdict.json";
  Analysis a;
  a.run = RunCommand(PlasmientBinary() + " analyze " + inputs + " -q --json " + out.string() + " " + flags);
  a.json = ReadFile(out);
  return a;
}

// The peer's per-rank reference: idle %, compute %, comm/comp overlap %.
struct PeerFigures {
  double idle_pct = 0, compute_pct = 0, overlap_pct = 0;
};

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  return cells;
}

std::map<std::int64_t, PeerFigures> ReadReference(const fs::path& dir) {
  std::map<std::int64_t, PeerFigures> out;
  std::ifstream temporal(dir / "temporal_breakdown.csv");
  std::string line;
  std::getline(temporal, line);  // header
  while (std::getline(temporal, line)) {
    auto c = SplitCsv(line);
    if (c.size() < 9) continue;
    auto& f = out[std::stoll(c[1])];
    f.idle_pct = std::stod(c[6]);
    f.compute_pct = std::stod(c[7]);
  }
  std::ifstream overlap(dir / "comm_comp_overlap.csv");
  std::getline(overlap, line);
  while (std::getline(overlap, line)) {
    auto c = SplitCsv(line);
    if (c.size() < 3) continue;
    out[std::stoll(c[1])].overlap_pct = std::stod(c[2]);
  }
  return out;
}

struct RankFigures {
  double idle_pct, compute_pct, overlap_pct;
};

std::map<std::int64_t, RankFigures> PerRank(const std::string& json) {
  std::map<std::int64_t, RankFigures> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return out;
  for (auto r : doc["per_rank"].get_array()) {
    double span = r["kernel_span_s"].get_double();
    double comm = r["communication_s"].get_double();
    out[r["rank"].get_int64()] = {100 * r["idle_s"].get_double() / span,
                                  100 * r["compute_s"].get_double() / span,
                                  comm > 0 ? 100 * r["communication_overlapped_s"].get_double() / comm : 0};
  }
  return out;
}

struct ReferenceCase {
  std::string reference;
  std::vector<std::string> traces;
  friend void PrintTo(const ReferenceCase& c, std::ostream* os) { *os << c.reference; }
};

class PeerReference : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(PeerReference, IdleComputeAndOverlapWithinOnePointPerRank) {
  REQUIRE_SHARED_TRACES(shared);
  const auto& c = GetParam();
  std::string inputs;
  for (const auto& t : c.traces) {
    inputs += ' ';
    inputs += (*shared / t).string();
  }
  Analysis a = Analyze(inputs, "--steps :-1");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
  auto ours = PerRank(a.json);
  auto peer = ReadReference(*shared / "reference" / c.reference);
  ASSERT_EQ(ours.size(), peer.size()) << a.json.substr(0, 2000);
  for (const auto& [rank, p] : peer) {
    ASSERT_TRUE(ours.count(rank)) << "rank " << rank << " missing";
    const auto& o = ours[rank];
    EXPECT_NEAR(o.idle_pct, p.idle_pct, 1.0) << c.reference << " rank " << rank << " idle";
    EXPECT_NEAR(o.compute_pct, p.compute_pct, 1.0) << c.reference << " rank " << rank << " compute";
    EXPECT_NEAR(o.overlap_pct, p.overlap_pct, 1.0) << c.reference << " rank " << rank << " overlap";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hta, PeerReference,
    ::testing::Values(ReferenceCase{"trace_filter",
                                    {"hta/trace_filter/sampled_rank-0.json.gz",
                                     "hta/trace_filter/sampled_rank-1.json.gz"}},
                      ReferenceCase{"nccl_parser_config", {"hta/nccl_parser_config/nccl_data.json.gz"}},
                      ReferenceCase{"negative_queue_length_values_check",
                                    {"hta/negative_queue_length_values_check/rank0.json.gz"}}),
    [](const auto& info) { return info.param.reference; });

// Every Kineto file: a verdict whose fractions sum to 1, or the plain no-GPU message.
TEST(RealTraces, EveryKinetoFileAnalyzesOrSaysItHasNoGpuActivity) {
  REQUIRE_SHARED_TRACES(shared);
  int analyzed = 0, no_gpu = 0;
  for (const auto& e : fs::recursive_directory_iterator(*shared)) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !(name.ends_with(".json.gz") || name.ends_with(".json"))) continue;
    if (name == "manifest.json" || name == "run_meta.json") continue;
    Analysis a = Analyze(e.path().string(), "");
    if (a.run.exit_code == 3) {
      EXPECT_NE(a.run.out.find("no GPU activity"), std::string::npos) << name << ": " << a.run.out;
      ++no_gpu;
      continue;
    }
    ASSERT_EQ(a.run.exit_code, 0) << name << ": " << a.run.out;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(a.json).get(doc), simdjson::SUCCESS) << name;
    double sum = doc["achieved_fraction"].get_double();
    for (auto [k, v] : doc["losses"].get_object()) sum += v.get_double();
    EXPECT_NEAR(sum, 1.0, 1e-9) << name;
    double util = doc["utilization"].get_double();
    EXPECT_GT(util, 0) << name;
    EXPECT_LE(util, 1.0 + 1e-12) << name;
    ++analyzed;
  }
  EXPECT_GE(analyzed, 12);
  EXPECT_EQ(no_gpu, 2);  // cpu_only and the CUPTI range-profiler trace
}

// The raw events of a trace file (gzip or plain), parsed by the test itself.
struct RawTrace {
  std::string text;
  simdjson::dom::parser parser;
  simdjson::dom::array events;
};

void ReadRaw(const fs::path& path, RawTrace& raw) {
  CommandResult r = RunCommand("gzip -dcf '" + path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out.substr(0, 200);
  raw.text = std::move(r.out);
  simdjson::dom::element doc;
  ASSERT_EQ(raw.parser.parse(raw.text).get(doc), simdjson::SUCCESS) << path;
  ASSERT_EQ(doc["traceEvents"].get_array().get(raw.events), simdjson::SUCCESS) << path;
}

std::string_view Str(simdjson::dom::element e, std::string_view key) {
  std::string_view v;
  return e[key].get_string().get(v) == simdjson::SUCCESS ? v : std::string_view{};
}

// The entry named `name` of a verdict's data_quality, or a null element.
simdjson::dom::element Quality(simdjson::dom::element verdict, std::string_view name) {
  for (auto q : verdict["data_quality"].get_array()) {
    if (Str(q, "name") == name) return q;
  }
  return {};
}

// The action of the verdict's fix for `loss` on `path`, or nullopt when the verdict has none (a
// failed analysis or unreadable JSON fails the test).
std::optional<std::string> FixAction(const fs::path& path, std::string_view loss) {
  Analysis a = Analyze(path.string(), "");
  EXPECT_EQ(a.run.exit_code, 0) << a.run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  if (parser.parse(a.json).get(v) != simdjson::SUCCESS) {
    ADD_FAILURE() << path << ": no verdict JSON";
    return std::nullopt;
  }
  for (auto f : v["fixes"].get_array()) {
    if (Str(f, "loss") == loss) return std::string(Str(f, "action"));
  }
  return std::nullopt;
}

// TorchRec on NCCL: every communication kernel is ncclKernel_SendRecv, under all-to-all,
// all-reduce and all-gather ops; nothing is a pipeline send/recv.
TEST(RealTraces, TraceFilterAllToAllIsExposedCommunicationNotAPipelineBubble) {
  REQUIRE_SHARED_TRACES(shared);
  fs::path dir = *shared / "hta/trace_filter";
  int send_recv_kernels = 0;
  for (const char* file : {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"}) {
    RawTrace raw;
    ASSERT_NO_FATAL_FAILURE(ReadRaw(dir / file, raw));
    for (auto e : raw.events) {
      std::string_view name = Str(e, "name"), cat = Str(e, "cat");
      if (cat == "kernel" && name.find("nccl") != std::string_view::npos) {
        ASSERT_NE(name.find("SendRecv"), std::string_view::npos) << name;
        ++send_recv_kernels;
      }
      bool p2p_op = name == "c10d::send" || name == "c10d::recv_" || name == "nccl:send" ||
                    name == "nccl:recv" || name.find("batch_isend_irecv") != std::string_view::npos;
      ASSERT_FALSE(p2p_op) << file << " has a point-to-point op: " << name;
    }
  }
  ASSERT_GT(send_recv_kernels, 0);
  Analysis a = Analyze(dir.string(), "");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS);
  EXPECT_EQ(v["losses"]["pipeline_bubble"].get_double().value(), 0);
  EXPECT_GT(v["losses"]["exposed_communication"].get_double().value(), 0.05);
  for (auto f : v["fixes"].get_array()) EXPECT_NE(Str(f, "loss"), "pipeline_bubble");
  bool listed = false;
  for (auto k : v["top_kernels"].get_array()) {
    if (Str(k, "name").find("SendRecv") == std::string_view::npos) continue;
    EXPECT_EQ(Str(k, "loss"), "exposed_communication");
    listed = true;
  }
  EXPECT_TRUE(listed);
}

// The collective family of an nccl:* op, as docs/verdict.md names them.
std::string_view FamilyOfNcclOp(std::string_view op) {
  if (op.find("all_to_all") != std::string_view::npos) return "all-to-all";
  if (op.find("all_reduce") != std::string_view::npos) return "all-reduce";
  if (op.find("all_gather") != std::string_view::npos || op.find("reduce_scatter") != std::string_view::npos)
    return "all-gather/reduce-scatter";
  return "other collectives";
}

// Exposed communication per family, from the raw events: each NCCL kernel's family is that of
// the nccl:* op around its launch; a stretch with no other kernel resident is split among the
// NCCL kernels resident in it.
std::map<std::string, double> RawExposedCommunication(RawTrace& raw) {
  std::map<std::int64_t, std::pair<std::int64_t, double>> launches;  // correlation → (tid, ts)
  struct Range {
    std::int64_t tid;
    double ts, end;
    std::string_view name;
  };
  std::vector<Range> nccl_ops;
  for (auto e : raw.events) {
    std::string_view cat = Str(e, "cat"), name = Str(e, "name");
    double ts = 0, dur = 0;
    std::int64_t tid = 0, correlation = 0;
    if (e["ts"].get(ts) || e["tid"].get(tid)) continue;
    if (cat == "cuda_runtime" && !e["args"]["correlation"].get(correlation))
      launches[correlation] = {tid, ts};
    if ((cat == "cpu_op" || cat == "user_annotation") && name.starts_with("nccl:") && !e["dur"].get(dur))
      nccl_ops.push_back({tid, ts, ts + dur, name});
  }
  struct Edge {
    double t;
    int delta;
    std::string family;  // "" for a compute kernel
  };
  std::vector<Edge> edges;
  for (auto e : raw.events) {
    if (Str(e, "cat") != "kernel") continue;
    double ts = 0, dur = 0;
    std::int64_t correlation = 0;
    if (e["ts"].get(ts) || e["dur"].get(dur) || e["args"]["correlation"].get(correlation)) continue;
    std::string family;
    if (Str(e, "name").find("nccl") != std::string_view::npos) {
      family = "other collectives";
      auto l = launches.find(correlation);
      const Range* innermost = nullptr;
      for (const auto& r : nccl_ops) {
        if (l == launches.end() || r.tid != l->second.first || r.ts > l->second.second ||
            r.end < l->second.second)
          continue;
        if (!innermost || r.ts >= innermost->ts) innermost = &r;
      }
      if (innermost) family = FamilyOfNcclOp(innermost->name);
    }
    edges.push_back({ts, +1, family});
    edges.push_back({ts + dur, -1, family});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  std::map<std::string, double> exposed;
  std::map<std::string, int> resident;
  double prev = edges.empty() ? 0 : edges.front().t;
  for (const auto& e : edges) {
    int comm = 0;
    for (const auto& [family, n] : resident) comm += family.empty() ? 0 : n;
    if (resident[""] == 0 && comm > 0) {
      for (const auto& [family, n] : resident) {
        if (!family.empty()) exposed[family] += (e.t - prev) * 1e-6 * n / comm;
      }
    }
    resident[e.family] += e.delta;
    prev = e.t;
  }
  return exposed;
}

// The names of the host ranges that hold each NCCL op's start on its thread, lower-cased, by the
// op's family: what a reader of the raw timeline sees around each collective.
std::map<std::string, std::vector<std::vector<std::string>>> RawRangesAroundNcclOps(RawTrace& raw) {
  struct Range {
    std::int64_t tid;
    double ts, end;
    std::string name;
  };
  std::vector<Range> ranges;
  for (auto e : raw.events) {
    std::string_view cat = Str(e, "cat");
    double ts = 0, dur = 0;
    std::int64_t tid = 0;
    if ((cat != "cpu_op" && cat != "user_annotation") || e["ts"].get(ts) || e["dur"].get(dur) ||
        e["tid"].get(tid))
      continue;
    std::string name(Str(e, "name"));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    ranges.push_back({tid, ts, ts + dur, std::move(name)});
  }
  std::map<std::string, std::vector<std::vector<std::string>>> out;
  for (const Range& op : ranges) {
    if (!op.name.starts_with("nccl:")) continue;
    std::vector<std::string> around;
    for (const Range& r : ranges) {
      if (r.tid == op.tid && r.ts <= op.ts && op.ts <= r.end && &r != &op) around.push_back(r.name);
    }
    out[std::string(FamilyOfNcclOp(op.name))].push_back(std::move(around));
  }
  return out;
}

bool EveryOpUnder(const std::vector<std::vector<std::string>>& ops, std::string_view part) {
  return std::all_of(ops.begin(), ops.end(), [&](const std::vector<std::string>& around) {
    return std::any_of(around.begin(), around.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
  });
}

// TorchRec's ranks expose all-to-all, all-gather and all-reduce in shares that differ by rank. The
// raw timeline says what each was for: the all-to-alls run under TorchRec's embedding ranges
// ("all2all"), the all-gathers inside the optimizer's step (distributed Shampoo), the all-reduces
// in autograd's backward. The causes are those roles with their shares of the exposed time; the
// advice is led by the largest, never MoE's, on both ranks alike.
TEST(RealTraces, TraceFilterExposedCommunicationIsNamedByWhatWasExposed) {
  REQUIRE_SHARED_TRACES(shared);
  const std::map<std::string, std::pair<std::string, std::string>> role_of_family = {
      {"all-to-all", {"embedding", "embedding all-to-all"}},
      {"all-gather/reduce-scatter", {"optimizer", "sharded-optimizer collectives"}},
      {"all-reduce", {"data_parallel", "data-parallel"}},
  };
  const std::map<std::string, std::string> range_of_family = {
      {"all-to-all", "all2all"},
      {"all-gather/reduce-scatter", "## optimizer ##"},
      {"all-reduce", "autograd::engine::evaluate_function"},
  };
  std::set<std::string> leaders;
  for (const char* file : {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"}) {
    const fs::path path = *shared / "hta/trace_filter" / file;
    RawTrace raw;
    ASSERT_NO_FATAL_FAILURE(ReadRaw(path, raw));
    const std::map<std::string, double> exposed = RawExposedCommunication(raw);
    const auto around = RawRangesAroundNcclOps(raw);
    double total = 0;
    std::pair<double, std::string> largest{0, ""};
    for (const auto& [family, s] : exposed) {
      total += s;
      largest = std::max(largest, {s, family});
      ASSERT_TRUE(role_of_family.contains(family)) << file << family;
      ASSERT_TRUE(around.contains(family)) << file << family;
      EXPECT_TRUE(EveryOpUnder(around.at(family), range_of_family.at(family))) << file << family;
    }
    ASSERT_GT(total, 0) << file;

    Analysis a = Analyze(path.string(), "");
    ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
    simdjson::dom::parser parser;
    simdjson::dom::element v;
    ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS);
    for (const auto& [family, s] : exposed) {
      EXPECT_NEAR(v["exposed_communication_s"][family].get_double().value(), s, 0.01 * total)
          << file << family;
    }
    const std::string label(Str(v, "exposed_communication_label"));
    const std::string named = largest.second == "all-gather/reduce-scatter"
                                  ? largest.second + " wait"
                                  : "exposed " + largest.second + " wait";
    EXPECT_EQ(label, largest.first >= 2.0 / 3 * total ? named : "exposed communication (mixed)") << file;
    bool found = false;
    for (auto f : v["fixes"].get_array()) {
      if (Str(f, "loss") != "exposed_communication" || Str(f, "action").starts_with("rank ")) continue;
      found = true;
      const std::string action(Str(f, "action"));
      EXPECT_TRUE(action.starts_with("exposed communication is " + role_of_family.at(largest.second).second))
          << file << ": " << action;
      EXPECT_EQ(action.find("MoE"), std::string::npos) << file << ": " << action;
      std::map<std::string, double> share;
      for (auto c : f["causes"].get_array())
        share[std::string(Str(c, "cause"))] = c["share"].get_double().value();
      for (const auto& [family, s] : exposed) {
        const std::string& role = role_of_family.at(family).first;
        if (s < 0.01 * total) continue;
        ASSERT_TRUE(share.contains(role)) << file << family;
        EXPECT_NEAR(share[role], s / total, 0.01) << file << family;
      }
      EXPECT_FALSE(share.contains("unknown")) << file;
    }
    EXPECT_TRUE(found) << file;
    leaders.insert(largest.second);
  }
  EXPECT_EQ(leaders.size(), 1u);  // both ranks' exposed time is led by the same family
}

// MIOpen's layout transposes (batched_transpose_*) run under the convolution ops and do no
// arithmetic: they are never "compute below peak", and the compute fix (the convolutions') never
// lists them; its culprits are convolution kernels.
TEST(RealTraces, Mi300LayoutTransposesAreNeverComputeBelowPeak) {
  REQUIRE_SHARED_TRACES(shared);
  const fs::path path = *shared / "tracelens/mi300/resnet_act_checkpoint.json.gz";
  RawTrace raw;
  ASSERT_NO_FATAL_FAILURE(ReadRaw(path, raw));
  int transposes = 0;
  for (auto e : raw.events)
    transposes += Str(e, "cat") == "kernel" && Str(e, "name").starts_with("batched_transpose");
  ASSERT_GT(transposes, 0);

  Analysis a = Analyze(path.string(), "");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS);
  int listed = 0;
  for (auto k : v["top_kernels"].get_array()) {
    if (!Str(k, "name").starts_with("batched_transpose")) continue;
    ++listed;
    EXPECT_NE(Str(k, "loss"), "compute_inefficiency") << Str(k, "name");
  }
  EXPECT_GT(listed, 0);
  for (auto f : v["fixes"].get_array()) {
    if (Str(f, "loss") != "compute_inefficiency") continue;
    for (auto c : f["culprits"].get_array()) {
      const std::string_view name = c.get_string().value();
      EXPECT_EQ(name.find("transpose"), std::string_view::npos) << name;
    }
  }
}

// The MI250 minitoy profiles its first steps: one hipLaunchKernel call runs for milliseconds while
// no GPU activity is resident (the driver loading the kernel's module), a large part of the
// kernels' span (both from the raw events). The verdict calls the window a warm-up, from that
// cause (the trace has too few steps for step times), with the call's length as its idle.
TEST(RealTraces, Mi250ModuleLoadingLaunchMakesTheWindowAWarmUp) {
  REQUIRE_SHARED_TRACES(shared);
  const fs::path path = *shared / "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
  RawTrace raw;
  ASSERT_NO_FATAL_FAILURE(ReadRaw(path, raw));
  double launch_ts = 0, launch_dur = 0, first = 1e300, last = 0;
  std::vector<std::pair<double, double>> gpu;
  for (auto e : raw.events) {
    double ts = 0, dur = 0;
    if (e["ts"].get(ts) || e["dur"].get(dur)) continue;
    const std::string_view cat = Str(e, "cat");
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      gpu.emplace_back(ts, ts + dur);
      first = std::min(first, ts);
      last = std::max(last, ts + dur);
    }
    if (cat == "cuda_runtime" && Str(e, "name") == "hipLaunchKernel" && dur > launch_dur) {
      launch_ts = ts;
      launch_dur = dur;
    }
  }
  ASSERT_GT(launch_dur, 0);
  for (const auto& [s, e] : gpu) EXPECT_TRUE(e <= launch_ts || s >= launch_ts + launch_dur) << s;
  ASSERT_GT(launch_dur, 0.10 * (last - first));  // the long call holds over a tenth of the span

  Analysis a = Analyze(path.string(), "");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS);
  simdjson::dom::element w = v["warm_up"];
  EXPECT_TRUE(w["detected"].get_bool().value());
  EXPECT_EQ(w["confidence"].get_string().value(), "medium");
  EXPECT_NEAR(w["warm_up_causes_s"].get_double().value(), launch_dur * 1e-6, 1e-6);
  EXPECT_NE(Str(w, "evidence").find("hipLaunchKernel"), std::string_view::npos) << Str(w, "evidence");
}

// The union of a raw trace's GPU activities (kernels, copies, memsets, either era's categories),
// in seconds: its GPU-busy time, from the events alone.
double RawGpuBusySeconds(const RawTrace& raw) {
  std::vector<std::pair<double, double>> spans;
  for (auto e : raw.events) {
    double ts = 0, dur = 0;
    if (Str(e, "ph") != "X" || e["ts"].get(ts) || e["dur"].get(dur)) continue;
    const std::string_view cat = Str(e, "cat");
    if (cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset" ||
        cat == "Memset")
      spans.emplace_back(ts, ts + dur);
  }
  std::sort(spans.begin(), spans.end());
  double busy_us = 0, start = 0, end = -1e300;
  for (const auto& [s, e] : spans) {
    if (s > end) {
      if (end > start) busy_us += end - start;
      start = s;
      end = e;
    } else {
      end = std::max(end, e);
    }
  }
  if (end > start) busy_us += end - start;
  return busy_us * 1e-6;
}

// A window with too little GPU work is not judged as a workload: every Kineto file whose raw GPU
// activities hold less than the verdict's floor of GPU-busy time (the event-sync test, the
// one-kernel traces, the MI250 minitoy) is refused as window_too_small (the window only ever sets
// activity aside), and none holding over twice the floor is (room for what it sets aside).
TEST(RealTraces, OnlyWindowsWithTooLittleGpuWorkAreRefusedAsTooSmall) {
  REQUIRE_SHARED_TRACES(shared);
  int refused = 0, judged = 0;
  for (const auto& e : fs::recursive_directory_iterator(*shared)) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !(name.ends_with(".json.gz") || name.ends_with(".json"))) continue;
    if (name == "manifest.json" || name == "run_meta.json") continue;
    RawTrace raw;
    ASSERT_NO_FATAL_FAILURE(ReadRaw(e.path(), raw));
    const double busy_s = RawGpuBusySeconds(raw);
    if (busy_s <= 0) continue;  // no GPU activity: its own cause
    Analysis a = Analyze(e.path().string(), "");
    ASSERT_EQ(a.run.exit_code, 0) << name << ": " << a.run.out;
    simdjson::dom::parser parser;
    simdjson::dom::element v;
    ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS) << name;
    const double floor_s = v["judgement"]["min_gpu_busy_s"].get_double().value();
    const std::string_view cause = Str(v["judgement"], "cause");
    if (busy_s < floor_s) {
      EXPECT_EQ(cause, "window_too_small") << name << ": " << busy_s << " s of GPU work";
      EXPECT_FALSE(v["judgeable"].get_bool().value()) << name;
      EXPECT_TRUE(v["headroom"].is_null()) << name;
      ++refused;
    } else if (busy_s > 2 * floor_s) {
      EXPECT_NE(cause, "window_too_small") << name << ": " << busy_s << " s of GPU work";
      ++judged;
    }
  }
  EXPECT_GE(refused, 4);
  EXPECT_GE(judged, 12);
}

// The torch.compile'd MI300 trace: besides its hipBLASLt GEMMs (Cijk_*) and attention (attn_fwd),
// every kernel is one Inductor already fused (triton_poi_fused_*, triton_red_fused_*), from the
// raw events. Its memory-bound fix never says to fuse the glue; it names it as already fused.
TEST(RealTraces, CompiledGlueIsNeverToldToFuse) {
  REQUIRE_SHARED_TRACES(shared);
  const fs::path path = *shared / "tracelens/torch_compile_triton/trace.json.gz";
  RawTrace raw;
  ASSERT_NO_FATAL_FAILURE(ReadRaw(path, raw));
  double glue = 0, fused = 0;
  for (auto e : raw.events) {
    double dur = 0;
    if (Str(e, "cat") != "kernel" || e["dur"].get(dur)) continue;
    const std::string_view name = Str(e, "name");
    if (name.starts_with("Cijk_") || name == "attn_fwd") continue;
    glue += dur;
    fused += name.starts_with("triton_") && name.find("_fused_") != std::string_view::npos ? dur : 0;
  }
  ASSERT_GT(glue, 0);
  ASSERT_GE(fused, 0.5 * glue);

  const std::optional<std::string> action = FixAction(path, "memory_bound");
  ASSERT_TRUE(action);
  EXPECT_EQ(action->find("fuse the elementwise"), std::string::npos) << *action;
  EXPECT_NE(action->find("already fused"), std::string::npos) << *action;
}

// The copies of this A100 rank are mostly device-to-device and pinned host-to-device (summed
// from the raw memcpy events); a handful of pageable ones take almost nothing. The fix follows
// the kind that takes the time: never "pin the host buffers".
TEST(RealTraces, DataMovementFixFollowsTheCopiesThatTakeTheTime) {
  REQUIRE_SHARED_TRACES(shared);
  const fs::path path = *shared / "hta/negative_queue_length_values_check/rank0.json.gz";
  RawTrace raw;
  ASSERT_NO_FATAL_FAILURE(ReadRaw(path, raw));
  double pageable = 0, total = 0, device = 0;
  for (auto e : raw.events) {
    if (Str(e, "cat") != "gpu_memcpy") continue;
    double dur = 0;
    if (e["dur"].get(dur)) continue;
    total += dur;
    pageable += Str(e, "name").find("Pageable") != std::string_view::npos ? dur : 0;
    device += Str(e, "name").find("DtoD") != std::string_view::npos ? dur : 0;
  }
  ASSERT_GT(total, 0);
  ASSERT_LT(pageable, 0.05 * total);
  ASSERT_GT(device, 0.4 * total);

  const std::optional<std::string> action = FixAction(path, "data_movement");
  ASSERT_TRUE(action);
  EXPECT_EQ(action->find("pin the host buffers"), std::string::npos) << *action;
  EXPECT_NE(action->find("device-to-device"), std::string::npos) << *action;
}

// HF inference on H100: the GPU was still running work queued before the profiler started.
TEST(RealTraces, QwenDefaultWindowLeavesOutWorkQueuedBeforeProfiling) {
  REQUIRE_SHARED_TRACES(shared);
  fs::path trace = *shared / "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
  RawTrace raw;
  ASSERT_NO_FATAL_FAILURE(ReadRaw(trace, raw));
  std::set<std::int64_t> launches;
  for (auto e : raw.events) {
    std::int64_t c;
    std::string_view cat = Str(e, "cat");
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && e["args"]["correlation"].get_int64().get(c) == 0) {
      launches.insert(c);
    }
  }
  ASSERT_FALSE(launches.empty());
  std::int64_t queued = 0;
  double queued_s = 0;
  for (auto e : raw.events) {
    std::string_view cat = Str(e, "cat");
    std::int64_t c;
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
    if (e["args"]["correlation"].get_int64().get(c) != 0 || launches.contains(c) || c >= *launches.begin())
      continue;
    ++queued;
    queued_s += e["dur"].get_double().value() * 1e-6;
  }
  ASSERT_GT(queued, 400);  // the trace's premise: hundreds of kernels with no launch

  Analysis whole = Analyze(trace.string(), "");
  Analysis steps = Analyze(trace.string(), "--steps 0:");
  ASSERT_EQ(whole.run.exit_code, 0) << whole.run.out;
  ASSERT_EQ(steps.run.exit_code, 0) << steps.run.out;
  simdjson::dom::parser p1, p2;
  simdjson::dom::element w, s;
  ASSERT_EQ(p1.parse(whole.json).get(w), simdjson::SUCCESS);
  ASSERT_EQ(p2.parse(steps.json).get(s), simdjson::SUCCESS);
  EXPECT_NEAR(w["achieved_fraction"].get_double().value(), s["achieved_fraction"].get_double().value(), 0.01);
  for (auto [loss, value] : w["losses"].get_object()) {
    EXPECT_NEAR(value.get_double().value(), s["losses"][loss].get_double().value(), 0.01) << loss;
  }
  auto q = Quality(w, "queued_before_profiling");
  ASSERT_TRUE(q.is_object()) << whole.json.substr(0, 3000);
  EXPECT_EQ(q["count"].get_int64().value(), queued);
  EXPECT_NEAR(q["gpu_time_s"].get_double().value(), queued_s, 1e-6);
}

// Qwen1.5-0.5B prefill of 16 sequences of 559 tokens: every GEMM has 8944 rows, so the GEMMs are
// not what waits on memory; the elementwise glue between them (rotary embedding, RMSNorm in
// fp32, casts and copies) is. The first fix fuses that glue and does not ask for a larger batch.
TEST(RealTraces, QwenPrefillMemoryBoundFixFusesTheGlueNotTheBatch) {
  REQUIRE_SHARED_TRACES(shared);
  fs::path trace = *shared / "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
  RawTrace raw;
  ASSERT_NO_FATAL_FAILURE(ReadRaw(trace, raw));
  // From the raw events: the rows of every GEMM op, and the kernel time of each op that is
  // neither a GEMM nor attention, joined by External id.
  std::set<std::int64_t> gemm_rows;
  std::map<std::int64_t, std::string_view> op_of;
  auto is_heavy = [](std::string_view op) {
    return op == "aten::mm" || op == "aten::addmm" || op == "aten::bmm" || op == "aten::linear" ||
           op == "aten::matmul" || op.find("attention") != std::string_view::npos;
  };
  for (auto e : raw.events) {
    if (Str(e, "cat") != "cpu_op") continue;
    std::string_view name = Str(e, "name");
    std::int64_t ext;
    if (e["args"]["External id"].get_int64().get(ext) == simdjson::SUCCESS) op_of.emplace(ext, name);
    if (name != "aten::mm" && name != "aten::addmm") continue;
    auto dims = e["args"]["Input Dims"].get_array();
    auto a = dims.at(name == "aten::addmm" ? 1 : 0).get_array();
    gemm_rows.insert(a.at(0).get_int64().value());
  }
  ASSERT_EQ(gemm_rows, (std::set<std::int64_t>{8944}))
      << "the trace's premise: one prefill of 16 × 559 tokens";
  std::map<std::string_view, double> glue_us;
  for (auto e : raw.events) {
    std::int64_t ext;
    if (Str(e, "cat") != "kernel" || e["args"]["External id"].get_int64().get(ext) != simdjson::SUCCESS)
      continue;
    auto op = op_of.find(ext);
    if (op != op_of.end() && !is_heavy(op->second)) glue_us[op->second] += e["dur"].get_double().value();
  }
  auto top_glue = std::max_element(glue_us.begin(), glue_us.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
  ASSERT_NE(top_glue, glue_us.end());

  Analysis a = Analyze(trace.string(), "");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS);
  simdjson::dom::element first;
  ASSERT_EQ(v["fixes"].at(0).get(first), simdjson::SUCCESS);
  ASSERT_EQ(Str(first, "loss"), "memory_bound") << a.json.substr(0, 3000);
  std::string_view action = Str(first, "action"), evidence = Str(first, "evidence");
  EXPECT_EQ(action.rfind("fuse the elementwise glue between the heavy ops", 0), 0u) << action;
  EXPECT_NE(action.find("a larger batch will not help"), std::string_view::npos) << action;
  // The rows are averaged over GEMM kernels by time: the prefill's 8944, within 1% (one tiny
  // bmm of 32 rows pulls it a little).
  constexpr std::string_view kRows = "GEMM rows (M × batch, by GEMM time): ";
  const auto at = evidence.find(kRows);
  ASSERT_NE(at, std::string_view::npos) << evidence;
  EXPECT_NEAR(std::stod(std::string(evidence.substr(at + kRows.size()))), 8944, 89) << evidence;
  EXPECT_NE(evidence.find(std::string("(") + std::string(top_glue->first) + " "), std::string_view::npos)
      << evidence << " should name " << top_glue->first << " first";
  EXPECT_LE(first["recoverable"].get_double().value(), first["fraction"].get_double().value());
  EXPECT_GT(first["recoverable"].get_double().value(), 0.5 * first["fraction"].get_double().value());
}

// A folder holding the same capture twice counts it once.
TEST(RealTraces, ADuplicatedFileCountsOnce) {
  REQUIRE_SHARED_TRACES(shared);
  fs::path dir = TempDir("dup");
  fs::path src = *shared / "hta/trace_filter";
  fs::create_symlink(src / "sampled_rank-0.json.gz", dir / "a-rank0.json.gz");
  fs::create_symlink(src / "sampled_rank-0.json.gz", dir / "b-copy.json.gz");
  fs::create_symlink(src / "sampled_rank-1.json.gz", dir / "c-rank1.json.gz");
  Analysis a = Analyze(dir.string(), "");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out;
  EXPECT_NE(a.run.out.find("b-copy.json.gz: skipped: the same trace as"), std::string::npos) << a.run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.parse(a.json).get(v), simdjson::SUCCESS);
  EXPECT_EQ(v["per_rank"].get_array().size(), 2u);
  EXPECT_EQ(Quality(v, "duplicate_input")["count"].get_int64().value(), 1);
  fs::remove_all(dir);
}

// A dev trace of a 128-rank job beside a generated 2-rank job: refused, naming the evidence.
TEST(RealTraces, TracesOfTwoJobsAreNeverMerged) {
  REQUIRE_SHARED_TRACES(shared);
  fs::path dir = TempDir("twojobs");
  CommandResult s =
      RunCommand(PlasmientBinary() + " synth --scenario ddp --ranks 2 --steps 1 -o " + dir.string());
  ASSERT_EQ(s.exit_code, 0) << s.out;
  fs::create_symlink(*shared / "hta/trace_filter/sampled_rank-0.json.gz", dir / "sampled_rank-0.json.gz");
  Analysis a = Analyze(dir.string(), "");
  EXPECT_EQ(a.run.exit_code, 1) << a.run.out;
  EXPECT_NE(a.run.out.find("the inputs are not one job: world size"), std::string::npos) << a.run.out;
  EXPECT_NE(a.run.out.find("128"), std::string::npos) << a.run.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::testing
