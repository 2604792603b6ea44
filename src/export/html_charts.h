// The report's charts as inline SVG (well-formed XML, coloured by the page's CSS variables so they
// follow light and dark mode and print). Each returns one <svg> element.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "verdict/verdict.h"

namespace plasmient::exporting {

// 100% of capacity at the top, each loss taken away in turn (largest first), achieved at the bottom.
// short_fixes: per loss, the advice for its tooltip (JobVerdict::short_fixes); may be empty.
// comm_label: the job's name for exposed communication (JobVerdict::loss_label); LossLabel's when empty.
std::string WaterfallSvg(const verdict::Figures& figures, std::span<const std::string> short_fixes = {},
                         std::string_view comm_label = {});

// A kernel's device activity during its calls, "SM 90% · tensor 40% · DRAM 35%" (each mean
// present), or "" when no device-tier sample fell inside them.
std::string DeviceActivityText(const verdict::DeviceActivity& device);

// Log-log roofline: the memory slope up to the ridge point, the compute roof after it, and each
// kernel with a FLOP and a byte model as a point (area ∝ its GPU time; its tooltip carries its
// DeviceActivityText when it has one). `skipped` receives how
// many kernels could not be placed (no FLOPs or no bytes).
std::string RooflineSvg(const verdict::DeviceChoice& device,
                        const std::vector<verdict::KernelAggregate>& kernels, int* skipped);

// Ranks × steps, each cell coloured by its achieved fraction. At most `max_ranks` rows and
// `max_steps` columns are drawn; `clipped` is set when some were left out.
std::string HeatmapSvg(const std::vector<verdict::RankVerdict>& ranks, std::size_t max_ranks,
                       std::size_t max_steps, bool* clipped);

}  // namespace plasmient::exporting
