// The report's model-layer section (docs/layers.md): an icicle chart of the module tree — each
// node a box as wide as its GPU time, shaded by its achieved fraction of peak, its figures on
// hover — and the per-type table beside it. Boxes carry their figures as data attributes
// (data-path, data-gpu-time-s, data-share, data-achieved), written as --json writes them.
#pragma once

#include <cstddef>
#include <string>

#include "verdict/verdict.h"

namespace plasmient::exporting {

struct IcicleOptions {
  std::size_t max_boxes = 600;  // boxes drawn at most; smaller nodes are folded into their parent's "N more"
  std::size_t max_depth = 14;   // rows drawn at most
  std::size_t max_types = 20;   // rows of the per-type table
};

// <section id="layers"> … </section>, or "" when the trace has no module or annotation ranges.
std::string LayersSection(const verdict::Layers& layers, const IcicleOptions& options = {});

}  // namespace plasmient::exporting
