// A what-if projection (whatif::Projection) as JSON (plasmient.whatif/1, docs/json-schema.md)
// and as the terminal's side-by-side table. Sinks format; the projection computed every figure.
#pragma once

#include <string>

#include "whatif/projection.h"

namespace plasmient::exporting {

// What the bill needs beside the projection: the price of a GPU-hour and how many GPUs.
struct WhatIfBillInputs {
  double price_per_gpu_hour = 0;
  std::int64_t gpus = 1;
  std::string device;  // the device's name, for the header
};

std::string WhatIfToJson(const whatif::Projection& p, const WhatIfBillInputs& bill);
std::string RenderWhatIfTerminal(const whatif::Projection& p, const WhatIfBillInputs& bill, bool color);

}  // namespace plasmient::exporting
