// The report's what-if panel (docs/what-if.md, "In the report"): the job projected at every
// position of a batch slider (1× … 64×, log steps) under every combination of the other levers
// the job can take. The page shows these projections as the controls move; they are Project's own,
// so the page and `plasmient whatif` give the same figures.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "verdict/verdict.h"
#include "whatif/activity_table.h"
#include "whatif/projection.h"

namespace plasmient::whatif {

// The slider's positions.
inline constexpr double kSliderBatchScales[] = {1, 2, 4, 8, 16, 32, 64};

// A lever the panel toggles: "overlap-comm", "cuda-graphs", "microbatches" (to `microbatches`).
struct SliderToggle {
  std::string key;
  std::int64_t microbatches = 0;
};

struct Slider {
  std::vector<double> batch_scales;   // kSliderBatchScales
  std::vector<SliderToggle> toggles;  // those the job can take, in the order above
  // One per (batch scale b, set of toggles m as a bit mask over `toggles`), at b · 2^toggles + m.
  std::vector<Projection> points;

  const Projection& At(std::size_t batch_index, std::size_t mask) const {
    return points[(batch_index << toggles.size()) + mask];
  }
};

// The panel's projections. The toggles offered: overlap-comm when the job has exposed
// communication, microbatches at twice the trace's count when a pipeline shows one, cuda-graphs
// always. Empty (no points) when the job has no GPU activity.
Slider ProjectSlider(Tables tables, const verdict::JobVerdict& job);
Slider ProjectSlider(const verdict::JobVerdict& job);  // over the tables its ranks keep
Slider ProjectSlider(std::span<const RankTable> tables, const verdict::JobVerdict& job);

}  // namespace plasmient::whatif
