#include "ingest/trace_kinds.h"

#include <gtest/gtest.h>

namespace plasmient::ingest {
namespace {

TEST(TraceKinds, TraceFileNamesAndStems) {
  EXPECT_TRUE(IsTraceFileName("r.json"));
  EXPECT_TRUE(IsTraceFileName("r.pt.trace.json.gz"));
  EXPECT_TRUE(IsTraceFileName("report.sqlite"));
  EXPECT_TRUE(IsTraceFileName("plasmient.rank3.host.1234.pltrace"));  // the agent's own files
  EXPECT_FALSE(IsTraceFileName(".pltrace"));                          // a bare suffix is no name
  EXPECT_FALSE(IsTraceFileName("r.plasmient"));
  EXPECT_EQ(TraceStem("r1.pt.trace.json.gz"), "r1");
  EXPECT_EQ(TraceStem("host.1234.pltrace"), "host.1234");
  EXPECT_EQ(TraceStem("notes.txt"), "notes.txt");
  EXPECT_EQ(TraceSuffixList(), ".json, .json.gz, .sqlite, .pltrace");
}

TEST(RankFromPath, RankWordWithOrWithoutSeparator) {
  EXPECT_EQ(RankFromPath("/runs/job/rank3.sqlite"), 3);
  EXPECT_EQ(RankFromPath("profile_rank-12.sqlite"), 12);
  EXPECT_EQ(RankFromPath("Rank_0_of_8.sqlite"), 0);
  EXPECT_EQ(RankFromPath("nsys.RANK.7.sqlite"), 7);
}

TEST(RankFromPath, TrailingNumberAfterUnderscore) {
  EXPECT_EQ(RankFromPath("/tmp/report_3.sqlite"), 3);
  EXPECT_EQ(RankFromPath("report_15.sqlite"), 15);
}

TEST(RankFromPath, NoRank) {
  EXPECT_EQ(RankFromPath("perlmutter-cloverleaf-cuda.sqlite"), -1);
  EXPECT_EQ(RankFromPath("/data/rank7/report.sqlite"), -1);  // only the file name counts
  EXPECT_EQ(RankFromPath("ranking.sqlite"), -1);
  EXPECT_EQ(RankFromPath("report_v2.sqlite"), -1);
  EXPECT_EQ(RankFromPath("capture_20240913012748.sqlite"), -1);  // a date, not a rank
}

}  // namespace
}  // namespace plasmient::ingest
