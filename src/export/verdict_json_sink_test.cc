#include "export/verdict_json_sink.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "export/terminal_sink.h"

namespace plasmient::exporting {
namespace {

verdict::JobVerdict ClusterJob() {
  verdict::JobVerdict job;
  for (int r = 0; r < 2; ++r) {
    verdict::RankVerdict v;
    v.rank = r;
    v.clock_offset_s = r * 0.025;
    v.clock_aligned = true;
    v.wait_on_peers_s = r == 0 ? 0.018 : 0;
    v.caused_wait_s = r == 1 ? 0.018 : 0;
    job.ranks.push_back(std::move(v));
  }
  verdict::Straggler s;
  s.rank = 1;
  s.caused_wait_s = 0.018;
  s.capacity_fraction = 0.009;
  s.kind = verdict::CollectiveKind::kAllReduce;
  s.late_steps = {3, 4};
  job.stragglers.push_back(s);
  verdict::CollectiveFigures c;
  c.kind = verdict::CollectiveKind::kAllGather;
  c.bus_bytes_per_s = 75e9;
  job.collectives.push_back(c);
  job.pipeline.push_back(
      {verdict::PipelineStage{.rank = 0, .stage = 0, .stages = 4, .microbatches = 0}, 0.2});
  job.job_problems.push_back("rank 1 given more than once: later inputs ignored");
  return job;
}

// A job's JSON comes out a piece at a time, between ranks, never much more than 1 MiB at once;
// the pieces joined are the whole text.
TEST(VerdictJsonSink, AManyRankJobIsHandedOverInPieces) {
  verdict::JobVerdict job;
  for (int r = 0; r < 4000; ++r) {
    verdict::RankVerdict v;
    v.rank = r;
    v.path = std::string(600, 'p') + "/rank-" + std::to_string(r) + ".json\"";  // escaped: 601+ bytes
    v.steps.resize(2);
    job.ranks.push_back(std::move(v));
  }
  std::vector<std::size_t> sizes;
  std::string joined;
  WriteVerdictJson(job, [&](std::string_view piece) {
    sizes.push_back(piece.size());
    joined += piece;
  });
  EXPECT_EQ(joined, VerdictToJson(job));
  ASSERT_GT(joined.size(), 4u << 20);
  EXPECT_GE(sizes.size(), 4u);
  for (std::size_t size : sizes) EXPECT_LT(size, (1u << 20) + (64u << 10));  // one rank past 1 MiB at most
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(joined).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(doc["per_rank"].get_array().size(), 4000u);
  EXPECT_EQ(doc["per_step"].get_array().size(), 8000u);
}

// The per-rank objects are formatted on several threads, a batch at a time: the text is the
// one a single thread writes, across batches and with ranks of different shapes.
TEST(VerdictJsonSink, TheTextIsTheSameOnAnyNumberOfThreads) {
  verdict::JobVerdict job;
  for (int r = 0; r < 70; ++r) {
    verdict::RankVerdict v;
    v.rank = r;
    v.path = "rank-" + std::to_string(r) + (r % 7 == 0 ? "\t\"odd\".json" : ".json");
    v.gpu_busy_s = 0.1 * r;
    if (r % 3 == 0) v.no_gpu_reason = "no kernels";
    v.steps.resize(r % 4);
    job.ranks.push_back(std::move(v));
  }
  std::string one;
  WriteVerdictJson(
      job, [&](std::string_view piece) { one += piece; }, 1);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(one).get(doc), simdjson::SUCCESS);
  ASSERT_EQ(doc["per_rank"].get_array().size(), 70u);
  std::string_view path;
  ASSERT_EQ(doc["per_rank"].at(63)["path"].get(path), simdjson::SUCCESS);
  EXPECT_EQ(path, "rank-63\t\"odd\".json");
  for (std::size_t threads : {2u, 3u, 5u, 64u}) {
    std::string many;
    WriteVerdictJson(
        job, [&](std::string_view piece) { many += piece; }, threads);
    EXPECT_EQ(many, one) << threads << " threads";
  }
}

TEST(VerdictJsonSink, WritesTheClusterFigures) {
  std::string out = VerdictToJson(ClusterJob());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS) << out;
  double offset = 0, wait = 0, caused = 0, bus = 0, measured = 0;
  ASSERT_EQ(doc["per_rank"].at(1)["clock_offset_s"].get(offset), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(offset, 0.025);
  ASSERT_EQ(doc["per_rank"].at(0)["wait_on_peers_s"].get(wait), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(wait, 0.018);
  ASSERT_EQ(doc["stragglers"].at(0)["caused_wait_s"].get(caused), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(caused, 0.018);
  EXPECT_EQ(doc["stragglers"].at(0)["late_steps"].get_array().size(), 2u);
  std::string_view kind;
  ASSERT_EQ(doc["collectives"].at(0)["kind"].get(kind), simdjson::SUCCESS);
  EXPECT_EQ(kind, "all_gather");
  ASSERT_EQ(doc["collectives"].at(0)["bus_bytes_per_s"].get(bus), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(bus, 75e9);
  EXPECT_TRUE(doc["pipeline"].at(0)["ideal_bubble"].is_null());  // M unknown
  ASSERT_EQ(doc["pipeline"].at(0)["measured_bubble"].get(measured), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(measured, 0.2);
  EXPECT_EQ(doc["job_problems"].get_array().size(), 1u);
}

// A job whose window is 10 s with `useful_s` of it useful, at 90% utilization.
verdict::JobVerdict Judged(double useful_s) {
  verdict::JobVerdict job;
  job.job.wall_s = 10;
  job.job.kernel_union_s = 9;
  job.job.useful_s = useful_s;
  job.job.loss_s[static_cast<std::size_t>(verdict::Loss::kComputeInefficiency)] = 10 - useful_s;
  return job;
}

TEST(VerdictJsonSink, HeadroomIsNullWithNothingUsefulAndCappedOnScreenAbove100) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string none = VerdictToJson(Judged(0));
  ASSERT_EQ(parser.parse(none).get(doc), simdjson::SUCCESS) << none;
  EXPECT_TRUE(doc["headroom"].is_null());
  std::string text = RenderTerminal(Judged(0), {.title = "t", .color = false, .details = false});
  EXPECT_NE(text.find("VERDICT: busy, not useful. no modeled useful work."), std::string::npos) << text;

  std::string tiny = VerdictToJson(Judged(0.01));  // 0.1% achieved: 1000x
  ASSERT_EQ(parser.parse(tiny).get(doc), simdjson::SUCCESS) << tiny;
  EXPECT_DOUBLE_EQ(doc["headroom"].get_double().value(), 1000);
  text = RenderTerminal(Judged(0.01), {.title = "t", .color = false, .details = false});
  EXPECT_NE(text.find("VERDICT: busy, not useful. > 100× headroom before new hardware."), std::string::npos)
      << text;
  text = RenderTerminal(Judged(4), {.title = "t", .color = false, .details = false});
  EXPECT_NE(text.find("VERDICT: partly useful. 2.5× headroom before new hardware."), std::string::npos)
      << text;
}

}  // namespace
}  // namespace plasmient::exporting
