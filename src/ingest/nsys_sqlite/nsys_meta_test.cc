#include "ingest/nsys_sqlite/nsys_meta.h"

#include <gtest/gtest.h>

namespace plasmient::ingest::nsys {
namespace {

TEST(RankFromEnvironment, MostSpecificVariableWins) {
  NsysExportMeta meta;
  EXPECT_EQ(RankFromEnvironment(meta), -1);
  meta.environment = {{"SLURM_PROCID", "4"}, {"PMI_RANK", "2"}, {"PMI_SIZE", "16"}, {"RANK", "x"}};
  EXPECT_EQ(RankFromEnvironment(meta), 2);  // RANK is not a number; PMI_RANK outranks SLURM_PROCID
  EXPECT_EQ(WorldSizeFromEnvironment(meta), 16);
}

}  // namespace
}  // namespace plasmient::ingest::nsys
