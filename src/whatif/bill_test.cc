#include "whatif/bill.h"

#include <gtest/gtest.h>

namespace plasmient::whatif {
namespace {

TEST(WhatIfBill, WasteIsThePriceOfTheTimeNotUsefulAndWorkCostsTheInverseGain) {
  Projection p;
  p.current.figures.wall_s = 10;
  p.current.figures.useful_s = 2.5;  // 25% achieved
  p.projected.figures.wall_s = 10;
  p.projected.figures.useful_s = 5;  // 50% achieved
  p.throughput_gain = 1.6;
  const BillInputs in{.price_per_gpu_hour = 4, .gpus = 8};

  const SideBill now = CurrentBill(p, in);
  EXPECT_DOUBLE_EQ(now.wasted_per_gpu_hour, 3);           // $4 × 75%
  EXPECT_DOUBLE_EQ(now.wasted_per_year, 3 * 8760.0 * 8);  // every GPU, all year (365 days)
  EXPECT_DOUBLE_EQ(now.cost_per_work, 1);

  const SideBill then = ProjectedBill(p, in);
  EXPECT_DOUBLE_EQ(then.wasted_per_gpu_hour, 2);
  EXPECT_DOUBLE_EQ(then.cost_per_work, 1 / 1.6);

  p.throughput_gain = 0;  // no work projected: no cost per unit of it
  EXPECT_EQ(ProjectedBill(p, in).cost_per_work, 0);
}

TEST(WhatIfBill, InputsAreTheJobsPriceOneGpuPerRankAndItsDevice) {
  verdict::JobVerdict job;
  job.ranks.resize(3);
  job.device.name = "NVIDIA H100 SXM 80GB";
  job.device.price_per_gpu_hour = 2.5;
  const BillInputs in = BillInputsOf(job);
  EXPECT_EQ(in.gpus, 3);
  EXPECT_EQ(in.price_per_gpu_hour, 2.5);
  EXPECT_EQ(in.device, "NVIDIA H100 SXM 80GB");
}

}  // namespace
}  // namespace plasmient::whatif
