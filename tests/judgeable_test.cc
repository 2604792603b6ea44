// Verdicts that claim no more than the data holds (docs/verdict.md, "Judgeable"): a generated job
// whose FLOP and byte models cover too little of its compute — no shapes recorded, shapes left off
// its GEMMs and attention, graph replays with no capture — is not judged: `judgeable: false`, the
// achieved fraction kept as a lower bound, headroom, MFU and the bill's waste unknown, in the JSON,
// on screen, in the HTML report and in `whatif`; the same job with its shapes is judged.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <regex>
#include <string>

#include "tests/test_support.h"

namespace plasmient::testing {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

// A one-rank generated job; `strip` is a regex of the op names whose Input Dims are removed (as
// a trace taken without record_shapes has none), "" for none.
fs::path Generate(const std::string& flags, const std::string& strip) {
  const fs::path dir = TempDir("judgeable");
  CommandResult s = RunCommand(PlasmientBinary() + " synth -o " + dir.string() + " " + flags);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  if (strip.empty()) return dir;
  const fs::path trace = dir / "rank-0.pt.trace.json";
  std::string text = ReadFile(trace), out;
  const std::regex op("\"name\": \"(" + strip + ")\"");
  std::size_t begin = 0;
  while (begin < text.size()) {  // one event a line
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    if (std::regex_search(line, op)) {
      for (std::size_t at; (at = line.find("\"Input Dims\"")) != std::string::npos;)
        line.replace(at, 12, "\"Input Dimz\"");
    }
    out += line;
    if (end < text.size()) out += '\n';
    begin = end + 1;
  }
  std::ofstream(trace) << out;
  return dir;
}

struct Outputs {
  simdjson::dom::parser parser, whatif_parser;
  element verdict, whatif;
  std::string text, html, whatif_text;
};

void Analyze(const fs::path& dir, Outputs& o) {
  const fs::path json = dir / "verdict.json", html = dir / "report.html", whatif = dir / "whatif.json";
  CommandResult a = RunCommand(PlasmientBinary() + " analyze " + dir.string() + " --no-color --json " +
                               json.string() + " --html " + html.string() + " --price-per-gpu-hour 2.5");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  o.text = a.out;
  o.html = ReadFile(html);
  ASSERT_EQ(o.parser.load(json.string()).get(o.verdict), simdjson::SUCCESS);
  CommandResult w = RunCommand(PlasmientBinary() + " whatif " + dir.string() + " --no-color --json " +
                               whatif.string() + " --price-per-gpu-hour 2.5");
  ASSERT_EQ(w.exit_code, 0) << w.out;
  o.whatif_text = w.out;
  ASSERT_EQ(o.whatif_parser.load(whatif.string()).get(o.whatif), simdjson::SUCCESS);
}

struct Case {
  std::string name, synth, strip, cause;
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
};

class Unjudged : public ::testing::TestWithParam<Case> {};

TEST_P(Unjudged, LowerBoundAndUnknownsEverywhere) {
  const Case& c = GetParam();
  const fs::path dir = Generate(c.synth, c.strip);
  Outputs o;
  ASSERT_NO_FATAL_FAILURE(Analyze(dir, o));
  element v = o.verdict, j = o.verdict["judgement"];
  const double coverage = j["coverage"].get_double();
  EXPECT_LT(coverage, j["min_coverage"].get_double().value()) << c.name;
  EXPECT_FALSE(v["judgeable"].get_bool().value()) << c.name;
  EXPECT_EQ(std::string_view(j["achieved_fraction_is"].get_string()), "lower_bound");
  EXPECT_EQ(std::string_view(j["cause"].get_string()), c.cause) << j["reason"].get_string().value();
  EXPECT_FALSE(std::string_view(j["reason"].get_string()).empty());
  EXPECT_FALSE(std::string_view(j["fix"].get_string()).empty());
  const double achieved = v["achieved_fraction"].get_double();
  EXPECT_GE(j["achieved_fraction_at_most"].get_double().value(), achieved);
  EXPECT_TRUE(v["headroom"].is_null());
  EXPECT_TRUE(v["mfu"].is_null());
  EXPECT_TRUE(v["bill"]["paid_never_computed"].is_null());
  EXPECT_TRUE(v["bill"]["addressable"].is_null());
  // The terminal: usefulness unknown, no numeric waste, never "busy, not useful".
  EXPECT_EQ(o.text.find("busy, not useful"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("usefulness unknown"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("buys no useful work"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("to judge it: "), std::string::npos) << o.text;
  // The report: the same.
  EXPECT_EQ(o.html.find("busy, not useful"), std::string::npos);
  EXPECT_EQ(o.html.find("Busy, not useful"), std::string::npos);
  EXPECT_NE(o.html.find("usefulness unknown"), std::string::npos);
  EXPECT_NE(o.html.find("paid for, never computed: usefulness unknown"), std::string::npos);
  // whatif: lower bounds, no waste, no headroom.
  EXPECT_FALSE(o.whatif["judgeable"].get_bool().value());
  for (const char* side : {"current", "projected"}) {
    EXPECT_TRUE(o.whatif[side]["headroom"].is_null()) << side;
    EXPECT_TRUE(o.whatif[side]["bill"]["wasted_per_gpu_hour"].is_null()) << side;
  }
  EXPECT_NE(o.whatif_text.find("unknown"), std::string::npos) << o.whatif_text;
  fs::remove_all(dir);
}

constexpr const char* kDdp = "--scenario ddp --ranks 1 --steps 2 --seed 5";

// One rule: no shapes at all (0%), shapes left off the GEMMs and attention (19%), and a graph
// replay with no capture (0%) are all unjudged, each with its own cause.
INSTANTIATE_TEST_SUITE_P(
    Coverage, Unjudged,
    ::testing::Values(Case{"no_shapes_0pct", kDdp, "aten::[a-z_]+", "no_shapes"},
                      Case{"gemm_and_attention_shapes_missing_19pct", kDdp,
                           "aten::(mm|addmm|linear|scaled_dot_product_attention|_scaled_dot_product_flash_"
                           "attention|_scaled_dot_product_flash_attention_backward)",
                           "ops_not_modeled"},
                      Case{"graph_replay_without_capture",
                           "--scenario graph-decode-replay-only --ranks 1 --steps 2", "", "graph_replay"}),
    [](const auto& info) { return info.param.name; });

// The same job with its shapes is judged, with its numbers.
TEST(Judged, FullCoverageKeepsEveryFigure) {
  const fs::path dir = Generate(kDdp, "");
  Outputs o;
  ASSERT_NO_FATAL_FAILURE(Analyze(dir, o));
  EXPECT_TRUE(o.verdict["judgeable"].get_bool().value());
  EXPECT_EQ(std::string_view(o.verdict["judgement"]["achieved_fraction_is"].get_string()), "measured");
  EXPECT_TRUE(o.verdict["judgement"]["cause"].is_null());
  EXPECT_FALSE(o.verdict["headroom"].is_null());
  EXPECT_FALSE(o.verdict["bill"]["paid_never_computed"].is_null());
  EXPECT_NE(o.text.find("buys no useful work"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("usefulness unknown"), std::string::npos) << o.text;
  EXPECT_FALSE(o.whatif["projected"]["bill"]["wasted_per_gpu_hour"].is_null());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::testing
