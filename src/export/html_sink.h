// The verdict as one self-contained HTML page: verdict header, capacity waterfall, roofline, what
// to change, the model layers (html_layers.h), top kernels and ops, rank × step heatmap, ranks and
// collectives, data quality; the what-if panel (html_whatif.h) when given its projections, the
// vertical trace of one rank (html_vertical.h) when given its lanes. Elements carry ids for tests
// and links: verdict, waterfall, roofline, fixes, whatif, lanes, kernels, ops, layers, icicle,
// layer-types, heatmap, ranks, stragglers, collectives, quality.
#pragma once

#include <string>

#include "verdict/verdict.h"
#include "whatif/slider.h"

namespace plasmient::exporting {

struct VerticalTrace;  // html_vertical.h

struct HtmlOptions {
  std::string title;  // the trace or job name
  std::size_t max_heatmap_ranks = 256;
  std::size_t max_heatmap_steps = 200;
  const whatif::Slider* whatif = nullptr;   // the what-if panel's projections (html_whatif.h); none: no panel
  const VerticalTrace* vertical = nullptr;  // one rank's steps as lanes (VerticalCollector), or none
};

std::string RenderHtml(const verdict::JobVerdict& job, const HtmlOptions& options);

// The verdict's one-line headline ("busy, not useful."), shared with the terminal.
std::string VerdictHeadline(const verdict::JobVerdict& job);

}  // namespace plasmient::exporting
