#include "export/perfetto_sink.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>

#include "export/testing/test_traces.h"

namespace plasmient::exporting {
namespace {

// What a Perfetto/Chrome viewer needs of every event, checked on the whole file.
struct Checked {
  std::int64_t events = 0;
  std::map<std::string, std::int64_t> by_name;     // slice names (X)
  std::vector<simdjson::dom::element> kernels;     // X events of cat "kernel"
  std::map<std::int64_t, double> first_kernel_ts;  // per pid
  std::int64_t flows = 0, counters = 0;
  std::set<std::int64_t> steps;  // "step N" slices
};

::testing::AssertionResult Check(simdjson::dom::element doc, Checked& c) {
  simdjson::dom::array events;
  if (doc["traceEvents"].get(events) != simdjson::SUCCESS)
    return ::testing::AssertionFailure() << "no traceEvents";
  std::string_view unit;
  if (doc["displayTimeUnit"].get(unit) != simdjson::SUCCESS || unit != "ns") {
    return ::testing::AssertionFailure() << "displayTimeUnit is not ns";
  }
  std::set<std::int64_t> pids, named_pids;
  std::set<std::pair<std::int64_t, std::int64_t>> tids, named_tids;
  std::map<std::int64_t, std::pair<int, int>> flow_ends;  // id -> (s count, f count)
  std::map<std::pair<std::int64_t, std::string>, double> counter_ts;
  for (simdjson::dom::element e : events) {
    ++c.events;
    std::string_view ph, name;
    double ts = 0;
    std::int64_t pid = 0, tid = 0;
    if (e["ph"].get(ph) || e["name"].get(name) || e["ts"].get(ts) || e["pid"].get(pid) || e["tid"].get(tid)) {
      return ::testing::AssertionFailure() << "event lacks ph/ts/pid/tid/name: " << simdjson::to_string(e);
    }
    if (ph == "M") {
      std::string_view label;
      if (e["args"]["name"].get(label) == simdjson::SUCCESS) {
        if (name == "process_name") named_pids.insert(pid);
        if (name == "thread_name") named_tids.insert({pid, tid});
      }
      continue;
    }
    pids.insert(pid);
    if (ph == "X") {
      double dur = -1;
      if (e["dur"].get(dur) || dur < 0)
        return ::testing::AssertionFailure() << "X without dur >= 0: " << name;
      tids.insert({pid, tid});
      ++c.by_name[std::string(name)];
      std::string_view cat;
      if (!e["cat"].get(cat) && cat == "kernel") {
        c.kernels.push_back(e);
        auto [it, fresh] = c.first_kernel_ts.try_emplace(pid, ts);
        if (!fresh) it->second = std::min(it->second, ts);
      }
      if (!e["cat"].get(cat) && cat == "step") c.steps.insert(std::stoll(std::string(name.substr(5))));
    } else if (ph == "s" || ph == "f") {
      std::int64_t id = 0;
      if (e["id"].get(id)) return ::testing::AssertionFailure() << "flow without id";
      tids.insert({pid, tid});
      (ph == "s" ? flow_ends[id].first : flow_ends[id].second)++;
      ++c.flows;
    } else if (ph == "C") {
      double value = 0;
      if (e["args"]["value"].get(value)) return ::testing::AssertionFailure() << "counter without value";
      auto key = std::pair{pid, std::string(name)};
      auto [it, fresh] = counter_ts.try_emplace(key, ts);
      if (!fresh && ts < it->second)
        return ::testing::AssertionFailure() << "counter " << name << " goes back in time";
      it->second = ts;
      ++c.counters;
    } else {
      return ::testing::AssertionFailure() << "unexpected ph " << ph;
    }
  }
  for (auto [id, n] : flow_ends) {
    if (n.first != 1 || n.second != 1)
      return ::testing::AssertionFailure() << "flow " << id << " is not one s and one f";
  }
  for (auto pid : pids) {
    if (!named_pids.contains(pid))
      return ::testing::AssertionFailure() << "pid " << pid << " has no process_name";
  }
  for (auto t : tids) {
    if (!named_tids.contains(t))
      return ::testing::AssertionFailure() << "tid " << t.second << " has no thread_name";
  }
  return ::testing::AssertionSuccess();
}

std::string TempPath(std::string_view name) {
  return (std::filesystem::temp_directory_path() /
          fmt::format("plasmient_{}_{}.json", name, ::testing::UnitTest::GetInstance()->random_seed()))
      .string();
}

struct Output {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  PerfettoStats stats;
};

// Analyzes the ranks through a sink with `options`, then parses the output.
void AnalyzeInto(std::vector<model::Trace>& ranks, PerfettoOptions options,
                 const std::unordered_map<std::int64_t, double>& offsets, Output& run) {
  auto sink = PerfettoSink::Create(options);
  ASSERT_TRUE(sink) << sink.error().message;
  verdict::AnalyzeOptions ao = testing_traces::Options();
  ao.observer = sink->get();
  for (auto& t : ranks) ASSERT_TRUE(verdict::AnalyzeRank(t, ao));
  auto stats = (*sink)->Finish(offsets);
  ASSERT_TRUE(stats) << stats.error().message;
  run.stats = *stats;
  EXPECT_FALSE(std::filesystem::exists(options.path + ".spool"));
  ASSERT_EQ(run.parser.load(options.path).get(run.doc), simdjson::SUCCESS);
  std::filesystem::remove(options.path);
}

TEST(PerfettoSink, EveryEventIsWellFormedAndKernelsCarryTheirRoofline) {
  std::vector<model::Trace> ranks;
  ranks.push_back(testing_traces::ThreeStepRank(0));
  ranks.push_back(testing_traces::ThreeStepRank(1));
  Output run;
  AnalyzeInto(ranks, {.path = TempPath("all")}, {}, run);
  Checked c;
  ASSERT_TRUE(Check(run.doc, c));
  EXPECT_EQ(run.stats.events, c.events);
  EXPECT_EQ(c.steps, (std::set<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(c.by_name["aten::mm"], 6);        // ops track: 3 steps x 2 ranks
  EXPECT_EQ(c.by_name["ProfilerStep#1"], 2);  // model track
  EXPECT_EQ(c.flows, 2 * 6 * 2);              // op -> kernel for mm and add, per step and rank
  EXPECT_GT(c.counters, 0);
  ASSERT_FALSE(c.kernels.empty());
  int gemms = 0;
  for (auto k : c.kernels) {
    for (const char* key :
         {"flops", "bytes", "arithmetic_intensity", "achieved_pct", "roofline_pct", "bound", "loss"}) {
      EXPECT_FALSE(k["args"][key].error()) << key;
    }
    std::string_view name, bound, loss;
    ASSERT_FALSE(k["name"].get(name));
    ASSERT_FALSE(k["args"]["bound"].get(bound));
    ASSERT_FALSE(k["args"]["loss"].get(loss));
    if (name.find("gemm") != std::string_view::npos) {
      ++gemms;
      double achieved = 0, ai = 0;
      ASSERT_FALSE(k["args"]["achieved_pct"].get(achieved));
      ASSERT_FALSE(k["args"]["arithmetic_intensity"].get(ai));
      EXPECT_EQ(bound, "compute");
      EXPECT_EQ(loss, "compute_inefficiency");
      EXPECT_GT(achieved, 0);
      EXPECT_LT(achieved, 100);
      EXPECT_GT(ai, 100);  // over the test device's ridge point
    }
    if (name.find("elementwise") != std::string_view::npos) {
      EXPECT_EQ(bound, "memory");
    }
  }
  EXPECT_EQ(gemms, 6);
}

TEST(PerfettoSink, ModuleRangesCarryTheFiguresOfTheirCallsGpuWork) {
  std::vector<model::Trace> ranks;
  ranks.push_back(testing_traces::ThreeStepRank(0));
  Output run;
  AnalyzeInto(ranks, {.path = TempPath("ranges")}, {}, run);
  simdjson::dom::array events;
  ASSERT_FALSE(run.doc["traceEvents"].get(events));
  // Σ over the ranges' calls against Σ over the activities that name the range as their module.
  double range_ns = 0, range_useful_ns = 0, activity_ns = 0, activity_useful_ns = 0;
  int calls = 0;
  for (simdjson::dom::element e : events) {
    std::string_view name, cat, module;
    if (e["name"].get(name) || e["cat"].get(cat)) continue;
    auto args = e["args"];
    if (cat == "model" && name == "model.forward") {
      double gpu_ns = 0, achieved = 0, memory = 0, compute = 0;
      ASSERT_FALSE(args["gpu_time_ns"].get(gpu_ns)) << simdjson::to_string(e);
      ASSERT_FALSE(args["achieved_pct"].get(achieved));
      ASSERT_FALSE(args["memory_bound_pct"].get(memory));
      ASSERT_FALSE(args["compute_inefficiency_pct"].get(compute));
      EXPECT_GT(gpu_ns, 0);
      EXPECT_GT(achieved, 0);
      EXPECT_LT(achieved, 100);
      EXPECT_GT(compute, 0);  // the GEMM below peak
      ++calls;
      range_ns += gpu_ns;
      range_useful_ns += gpu_ns * achieved / 100;
    }
    if ((cat == "kernel" || cat == "collective") && !args["module"].get(module) &&
        module == "model.forward") {
      double share = 0, useful = 0;
      if (args["share_ns"].get(share)) {
        ASSERT_FALSE(args["exposed_wait_ns"].get(share));  // a collective: all of it lost
      } else {
        ASSERT_FALSE(args["useful_ns"].get(useful));
      }
      activity_ns += share;
      activity_useful_ns += useful;
    }
  }
  EXPECT_EQ(calls, 3);
  EXPECT_GT(activity_ns, 0);
  EXPECT_NEAR(range_ns, activity_ns, 1e-6 * activity_ns);
  EXPECT_NEAR(range_useful_ns, activity_useful_ns, 1e-3 * range_ns);  // achieved_pct has 2 decimals
}

TEST(PerfettoSink, CollectivesCarryPeersBytesAndBandwidth) {
  std::vector<model::Trace> ranks;
  ranks.push_back(testing_traces::ThreeStepRank(0));
  Output run;
  AnalyzeInto(ranks, {.path = TempPath("coll")}, {}, run);
  int collectives = 0;
  for (simdjson::dom::element e : run.doc["traceEvents"].get_array()) {
    std::string_view cat;
    if (e["cat"].get(cat) || cat != "collective") continue;
    ++collectives;
    std::string_view peers;
    double bandwidth = 0, wait = -1;
    ASSERT_FALSE(e["args"]["peers"].get(peers));
    ASSERT_FALSE(e["args"]["bandwidth_gb_per_s"].get(bandwidth));
    ASSERT_FALSE(e["args"]["exposed_wait_ns"].get(wait));
    EXPECT_EQ(peers, "[0, 1]");
    // 64 MiB in 400 us
    EXPECT_NEAR(bandwidth, 64.0 * (1 << 20) / 400e-6 / 1e9, 1e-6);
    EXPECT_NEAR(wait, 200'000, 1e-6);  // half of it under the GEMM
  }
  EXPECT_EQ(collectives, 3);
}

TEST(PerfettoSink, WorstStepsKeepsTheLowestAchievedStepsOnEveryRank) {
  std::vector<model::Trace> ranks;
  ranks.push_back(testing_traces::ThreeStepRank(0));
  ranks.push_back(testing_traces::ThreeStepRank(1));
  Output run;
  AnalyzeInto(ranks, {.path = TempPath("worst"), .worst_steps = 1}, {}, run);
  Checked c;
  ASSERT_TRUE(Check(run.doc, c));
  // Step 1 has a host stall: it is the worst, on both ranks.
  EXPECT_EQ(c.steps, (std::set<std::int64_t>{1}));
  EXPECT_EQ(run.stats.kept_steps, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(c.by_name["aten::mm"], 2);
  EXPECT_GT(run.stats.dropped, 0);
}

TEST(PerfettoSink, ClockOffsetsShiftEachRankSpooledOrDirect) {
  for (bool direct : {false, true}) {
    std::vector<model::Trace> ranks;
    ranks.push_back(testing_traces::ThreeStepRank(0));
    ranks.push_back(testing_traces::ThreeStepRank(1));  // same local clock
    std::unordered_map<std::int64_t, double> offsets{{1, 250e-6}};
    PerfettoOptions o{.path = TempPath(direct ? "direct" : "spooled")};
    if (direct) o.clock_offset_s = offsets;
    Output run;
    AnalyzeInto(ranks, o, direct ? std::unordered_map<std::int64_t, double>{} : offsets, run);
    Checked c;
    ASSERT_TRUE(Check(run.doc, c));
    ASSERT_EQ(c.first_kernel_ts.size(), 2u);
    EXPECT_NEAR(c.first_kernel_ts[1] - c.first_kernel_ts[0], -250.0, 1e-9) << (direct ? "direct" : "spooled");
  }
}

TEST(PerfettoSink, UnwritablePathFailsWithItsName) {
  auto sink = PerfettoSink::Create({.path = "/nonexistent-dir/x.json"});
  ASSERT_FALSE(sink);
  EXPECT_NE(sink.error().message.find("/nonexistent-dir/x.json"), std::string::npos);
}

}  // namespace
}  // namespace plasmient::exporting
