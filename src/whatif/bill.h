// The bill of a what-if projection's side (docs/what-if.md): what the time not spent on useful
// work costs at the job's price, per GPU-hour and per year, and the GPU-time a unit of work takes.
// The terminal, JSON and the report's what-if panel print these figures; none computes its own.
#pragma once

#include <cstdint>
#include <string>

#include "verdict/verdict.h"
#include "whatif/projection.h"

namespace plasmient::whatif {

// What the bill needs beside the projection: the price of a GPU-hour and how many GPUs.
struct BillInputs {
  double price_per_gpu_hour = 0;
  std::int64_t gpus = 1;
  std::string device;  // the device's name, for the header
};

// The job's: the price it was judged at, one GPU per rank, its device.
BillInputs BillInputsOf(const verdict::JobVerdict& job);

struct SideBill {
  double wasted_per_gpu_hour = 0;  // price × (1 − achieved)
  double wasted_per_year = 0;      // for every GPU of the job, all year
  double cost_per_work = 0;        // relative: GPU-time per unit of work, current = 1
};
SideBill CurrentBill(const Projection& p, const BillInputs& in);
SideBill ProjectedBill(const Projection& p, const BillInputs& in);

}  // namespace plasmient::whatif
