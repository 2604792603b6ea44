#include "ingest/nsys_sqlite/nsys_meta.h"

#include <gtest/gtest.h>

namespace plasmient::ingest::nsys {
namespace {

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

TEST(RankFromEnvironment, MostSpecificVariableWins) {
  NsysExportMeta meta;
  EXPECT_EQ(RankFromEnvironment(meta), -1);
  meta.environment = {{"SLURM_PROCID", "4"}, {"PMI_RANK", "2"}, {"PMI_SIZE", "16"}, {"RANK", "x"}};
  EXPECT_EQ(RankFromEnvironment(meta), 2);  // RANK is not a number; PMI_RANK outranks SLURM_PROCID
  EXPECT_EQ(WorldSizeFromEnvironment(meta), 16);
}

}  // namespace
}  // namespace plasmient::ingest::nsys
