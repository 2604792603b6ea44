// The cluster layer over the store (docs/fleet.md, "The cluster over the store") agrees with the
// cluster layer over the folder: a synth job analyzed once as a folder (`analyze DIR --json`) and
// once rank by rank into SQLite (`analyze rank-R --db S --job J`, then `fleet --db S --job J
// --cluster`) gives the same clock offsets, caused waits, stragglers and pipeline bubbles, within 1%.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using Table = std::vector<std::map<std::string, std::string>>;

// One FormatTable section of `fleet --cluster`'s output, after its title line.
Table Section(const std::string& text, const std::string& title) {
  Table out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && line != " " + title) {
  }
  std::vector<std::string> header;
  while (std::getline(in, line) && !line.empty() && line != "(no rows)" && !line.starts_with("…")) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    for (std::string w; words >> w;) cells.push_back(w);
    if (header.empty()) {
      header = cells;
      continue;
    }
    auto& row = out.emplace_back();
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
  }
  return out;
}

double Number(const std::map<std::string, std::string>& row, const std::string& column) {
  auto at = row.find(column);
  return at == row.end() || at->second == "-" ? std::nan("") : std::stod(at->second);
}

// Within 1% of the folder's figure, or of `floor` when the figure is smaller (offsets near zero).
void ExpectClose(double store, double folder, double floor, const std::string& what) {
  EXPECT_NEAR(store, folder, std::max(std::abs(folder) * 0.01, floor)) << what;
}

struct Both {
  simdjson::dom::parser parser;
  std::string verdict_text;
  simdjson::dom::element folder;  // analyze DIR --json
  std::string store;              // fleet --cluster's output
};

void AnalyzeBothWays(const std::string& synth_flags, int ranks, Both& both) {
  fs::path dir = TempDir("cluster_store");
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + (dir / "job").string() + " " + synth_flags);
  ASSERT_EQ(s.exit_code, 0) << s.out;
  fs::path json = dir / "verdict.json";
  CommandResult a =
      RunCommand(PlasmientBinary() + " analyze " + (dir / "job").string() + " -q --json " + json.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  fs::path db = dir / "store.sqlite";
  for (int r = 0; r < ranks; ++r) {
    fs::path trace = dir / "job" / ("rank-" + std::to_string(r) + ".pt.trace.json");
    CommandResult one = RunCommand(PlasmientBinary() + " analyze " + trace.string() + " -q --db " +
                                   db.string() + " --job synth-job --host node" + std::to_string(r / 8));
    ASSERT_EQ(one.exit_code, 0) << one.out;
  }
  CommandResult f = RunCommand(PlasmientBinary() + " fleet --db " + db.string() +
                               " --job synth-job --cluster --limit 100000");
  ASSERT_EQ(f.exit_code, 0) << f.out;
  both.store = f.out;
  both.verdict_text = ReadFile(json);
  ASSERT_EQ(both.parser.parse(both.verdict_text).get(both.folder), simdjson::SUCCESS);
  ASSERT_NE(both.store.find(std::to_string(ranks) + " ranks from " + std::to_string(ranks) + " analyses"),
            std::string::npos)
      << both.store;
}

// Offsets (within 1% or 1 µs) and caused waits (within 1% or 1 µs of wait) of every rank.
void ExpectSameClocksAndWaits(Both& both) {
  Table ranks = Section(both.store, "clocks and waits");
  std::map<std::int64_t, std::map<std::string, std::string>> by_rank;
  for (auto& row : ranks) by_rank[std::stoll(row["rank"])] = row;
  std::size_t seen = 0;
  for (auto r : both.folder["per_rank"].get_array()) {
    std::int64_t rank = r["rank"].get_int64().value();
    ASSERT_TRUE(by_rank.contains(rank)) << "rank " << rank << " missing from the store's output\n"
                                        << both.store;
    const auto& row = by_rank[rank];
    ExpectClose(Number(row, "clock_offset_s"), r["clock_offset_s"].get_double().value(), 1e-6,
                "clock offset of rank " + std::to_string(rank));
    ExpectClose(Number(row, "caused_wait_s"), r["caused_wait_s"].get_double().value(), 1e-6,
                "caused wait of rank " + std::to_string(rank));
    ExpectClose(Number(row, "wait_on_peers_s"), r["wait_on_peers_s"].get_double().value(), 1e-6,
                "wait on peers of rank " + std::to_string(rank));
    EXPECT_EQ(row.at("clock_aligned"), r["clock_aligned"].get_bool().value() ? "yes" : "no") << rank;
    ++seen;
  }
  EXPECT_EQ(seen, by_rank.size());
}

void ExpectSameStragglers(Both& both, std::size_t expected) {
  Table ours = Section(both.store, "stragglers");
  auto folder = both.folder["stragglers"].get_array();
  ASSERT_EQ(folder.size(), expected) << both.verdict_text.substr(0, 1000);
  ASSERT_EQ(ours.size(), expected) << both.store;
  std::size_t i = 0;
  for (auto s : folder) {
    EXPECT_EQ(std::stoll(ours[i].at("straggler_rank")), s["rank"].get_int64().value());
    ExpectClose(Number(ours[i], "caused_wait_s"), s["caused_wait_s"].get_double().value(), 0,
                "straggler's caused wait");
    ++i;
  }
}

TEST(ClusterStore, StragglerJobAgreesWithTheFolder) {
  Both both;
  ASSERT_NO_FATAL_FAILURE(AnalyzeBothWays("--scenario straggler --ranks 4 --steps 6", 4, both));
  ExpectSameClocksAndWaits(both);
  ExpectSameStragglers(both, 1);
  EXPECT_NE(both.store.find("rank 3 arrives late"), std::string::npos) << both.store;
}

TEST(ClusterStore, ClockOffsetsAgreeWithTheFolder) {
  Both both;
  ASSERT_NO_FATAL_FAILURE(AnalyzeBothWays("--scenario clock-offset --ranks 4 --steps 6", 4, both));
  ExpectSameClocksAndWaits(both);
  double largest = 0;
  for (auto r : both.folder["per_rank"].get_array()) {
    largest = std::max(largest, std::abs(r["clock_offset_s"].get_double().value()));
  }
  EXPECT_GT(largest, 1e-3) << "the scenario should offset clocks by milliseconds";
}

TEST(ClusterStore, PipelineBubblesAgreeWithTheFolder) {
  Both both;
  ASSERT_NO_FATAL_FAILURE(AnalyzeBothWays("--scenario pipeline --ranks 4 --steps 4", 4, both));
  ExpectSameClocksAndWaits(both);
  Table ours = Section(both.store, "pipeline");
  auto folder = both.folder["pipeline"].get_array();
  ASSERT_GT(folder.size(), 0u);
  ASSERT_EQ(ours.size(), folder.size()) << both.store;
  std::size_t i = 0;
  for (auto p : folder) {
    const auto& row = ours[i++];
    EXPECT_EQ(std::stoll(row.at("rank")), p["rank"].get_int64().value());
    EXPECT_EQ(std::stoll(row.at("stage")), p["stage"].get_int64().value());
    EXPECT_EQ(std::stoll(row.at("microbatches")), p["microbatches"].get_int64().value());
    ExpectClose(Number(row, "measured_bubble"), p["measured_bubble"].get_double().value(), 1e-6,
                "measured bubble");
    ExpectClose(Number(row, "ideal_bubble"), p["ideal_bubble"].get_double().value(), 1e-6, "ideal bubble");
  }
}

// The bar: 64 ranks recorded one by one name the folder's straggler, caused wait within 1%.
TEST(ClusterStore, SixtyFourRanksNameTheSameStraggler) {
  Both both;
  ASSERT_NO_FATAL_FAILURE(AnalyzeBothWays("--scenario straggler --ranks 64 --steps 3", 64, both));
  ExpectSameStragglers(both, 1);
  ExpectSameClocksAndWaits(both);
}

TEST(ClusterStore, AJobWithoutRowsIsOneLineAndExitOne) {
  fs::path db = TempDir("cluster_store_empty") / "store.sqlite";
  CommandResult f = RunCommand(PlasmientBinary() + " fleet --db " + db.string() + " --job nope --cluster");
  EXPECT_EQ(f.exit_code, 1) << f.out;
  EXPECT_NE(f.out.find("job 'nope': no per-rank cluster rows"), std::string::npos) << f.out;
  CommandResult no_job = RunCommand(PlasmientBinary() + " fleet --db " + db.string() + " --cluster");
  EXPECT_EQ(no_job.exit_code, 2) << no_job.out;
}

}  // namespace
}  // namespace plasmient::testing
