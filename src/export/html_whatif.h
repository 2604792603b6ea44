// The report's what-if panel (docs/what-if.md, "In the report"): a batch slider (1× … 64×, log
// steps) and toggles for the other levers the job can take; the achieved fraction, each loss, the
// headroom and the bill follow them. The figures are the projections of whatif::ProjectSlider,
// embedded in the page as data; the script picks the one the controls name, computes nothing.
// The page reads `#batch=32&overlap-comm=1` (any of the toggles' keys) at load, so a test or a
// link can open it at a setting. Element ids: whatif, whatif-batch, whatif-scale,
// whatif-<toggle key>, whatif-achieved, whatif-gain, whatif-headroom, whatif-loss-<loss key>,
// whatif-bill-hour, whatif-bill-year, whatif-warnings.
#pragma once

#include <string>

#include "export/whatif_sink.h"
#include "whatif/slider.h"

namespace plasmient::exporting {

// The panel's <section>; empty when the slider has no points (no GPU activity).
std::string WhatIfPanel(const whatif::Slider& slider, const whatif::BillInputs& bill);

}  // namespace plasmient::exporting
