// A what-if projection (whatif::Projection) as JSON (plasmient.whatif/1, docs/json-schema.md)
// and as the terminal's side-by-side table. Sinks format; the projection computed every figure.
#pragma once

#include <string>

#include "verdict/verdict.h"
#include "whatif/projection.h"

namespace plasmient::exporting {

// What the bill needs beside the projection: the price of a GPU-hour and how many GPUs.
struct WhatIfBillInputs {
  double price_per_gpu_hour = 0;
  std::int64_t gpus = 1;
  std::string device;  // the device's name, for the header
};

// The job's: the price it was judged at, one GPU per rank, its device.
WhatIfBillInputs BillInputsOf(const verdict::JobVerdict& job);

// The bill of a projection's side (JSON `bill`, the terminal's bill rows, the report's what-if panel).
struct WhatIfBill {
  double wasted_per_gpu_hour = 0;  // price × (1 − achieved)
  double wasted_per_year = 0;      // for every GPU of the job, all year
  double cost_per_work = 0;        // relative: GPU-time per unit of work, current = 1
};
WhatIfBill CurrentBill(const whatif::Projection& p, const WhatIfBillInputs& in);
WhatIfBill ProjectedBill(const whatif::Projection& p, const WhatIfBillInputs& in);

std::string WhatIfToJson(const whatif::Projection& p, const WhatIfBillInputs& bill);
std::string RenderWhatIfTerminal(const whatif::Projection& p, const WhatIfBillInputs& bill, bool color);

}  // namespace plasmient::exporting
