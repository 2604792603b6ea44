#include "roofline/roofline.h"

#include <algorithm>

namespace plasmient::roofline {

double RidgePoint(double peak_flops_per_s, double bandwidth_bytes_per_s) {
  return bandwidth_bytes_per_s > 0 ? peak_flops_per_s / bandwidth_bytes_per_s : 0;
}

bool BelowRidge(double ai, double peak_flops_per_s, double bandwidth_bytes_per_s) {
  return bandwidth_bytes_per_s > 0 && ai >= 0 && ai < RidgePoint(peak_flops_per_s, bandwidth_bytes_per_s);
}

double CeilingAt(double ai, double peak_flops_per_s, double bandwidth_bytes_per_s) {
  return bandwidth_bytes_per_s > 0 ? std::min(peak_flops_per_s, ai * bandwidth_bytes_per_s)
                                   : peak_flops_per_s;
}

RooflinePoint Evaluate(double flops, double bytes, double seconds, double peak_flops_per_s,
                       double bandwidth_bytes_per_s) {
  RooflinePoint p;
  p.achieved_flops_per_s = seconds > 0 && flops > 0 ? flops / seconds : 0;
  p.peak_fraction = peak_flops_per_s > 0 ? p.achieved_flops_per_s / peak_flops_per_s : 0;
  p.ceiling_flops_per_s = peak_flops_per_s;
  if (bytes > 0 && flops >= 0) {
    p.ai = flops / bytes;
    if (bandwidth_bytes_per_s > 0) {
      p.ceiling_flops_per_s = CeilingAt(p.ai, peak_flops_per_s, bandwidth_bytes_per_s);
      p.memory_bound = BelowRidge(p.ai, peak_flops_per_s, bandwidth_bytes_per_s);
    }
  }
  if (flops > 0) {
    p.roofline_fraction = p.ceiling_flops_per_s > 0 ? p.achieved_flops_per_s / p.ceiling_flops_per_s : 0;
  } else if (bytes > 0 && seconds > 0 && bandwidth_bytes_per_s > 0) {
    p.roofline_fraction = bytes / seconds / bandwidth_bytes_per_s;
  }
  return p;
}

}  // namespace plasmient::roofline
