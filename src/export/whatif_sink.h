// A what-if projection (whatif::Projection) as JSON (plasmient.whatif/1, docs/json-schema.md)
// and as the terminal's side-by-side table. Sinks format; the projection computed every figure.
#pragma once

#include <string>

#include "verdict/verdict.h"
#include "whatif/bill.h"
#include "whatif/projection.h"

namespace plasmient::exporting {

std::string WhatIfToJson(const whatif::Projection& p, const whatif::BillInputs& bill);
std::string RenderWhatIfTerminal(const whatif::Projection& p, const whatif::BillInputs& bill, bool color);

}  // namespace plasmient::exporting
