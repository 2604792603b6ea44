#include "whatif/slider.h"

namespace plasmient::whatif {

Slider ProjectSlider(const verdict::JobVerdict& job) { return ProjectSlider(TablesOf(job), job); }

Slider ProjectSlider(std::span<const RankTable> tables, const verdict::JobVerdict& job) {
  return ProjectSlider(TablesOf(tables), job);
}

Slider ProjectSlider(Tables tables, const verdict::JobVerdict& job) {
  Slider s;
  if (tables.empty() || job.job.wall_s <= 0) return s;
  s.batch_scales.assign(std::begin(kSliderBatchScales), std::end(kSliderBatchScales));
  if (job.job.loss(verdict::Loss::kExposedCommunication) > 0) s.toggles.push_back({"overlap-comm"});
  for (const verdict::PipelineStageVerdict& p : job.pipeline) {
    if (p.shape.microbatches > 0 && p.shape.stages > 1) {
      // Offered when every rank can take it (a rank outside the pipeline cannot).
      const std::int64_t m = 2 * p.shape.microbatches;
      if (Project(tables, job, Levers{.microbatches = m})) s.toggles.push_back({"microbatches", m});
      break;
    }
  }
  s.toggles.push_back({"cuda-graphs"});
  const std::size_t combos = std::size_t{1} << s.toggles.size();
  s.points.reserve(s.batch_scales.size() * combos);
  for (double k : s.batch_scales) {
    for (std::size_t mask = 0; mask < combos; ++mask) {
      Levers l{.batch_scale = k};
      for (std::size_t t = 0; t < s.toggles.size(); ++t) {
        if ((mask >> t & 1) == 0) continue;
        const SliderToggle& toggle = s.toggles[t];
        if (toggle.key == "overlap-comm") l.overlap_comm = true;
        if (toggle.key == "cuda-graphs") l.cuda_graphs = true;
        if (toggle.key == "microbatches") l.microbatches = toggle.microbatches;
      }
      auto p = Project(tables, job, l);
      if (!p) return {};  // each lever was tried alone above: not expected

      s.points.push_back(std::move(*p));
    }
  }
  return s;
}

}  // namespace plasmient::whatif
