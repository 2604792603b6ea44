// One kernel against the roofline: ceiling = min(P, AI · BW).
#pragma once

namespace plasmient::roofline {

struct RooflinePoint {
  double ai = 0;                    // FLOP per byte; 0 when bytes are unknown
  double ceiling_flops_per_s = 0;   // min(P, AI·BW); P when bytes are unknown
  double achieved_flops_per_s = 0;  // flops / seconds
  double roofline_fraction = 0;     // achieved / ceiling
  bool memory_bound = false;        // AI below the ridge point P / BW
};

// flops and bytes as modeled (bytes <= 0: unknown), seconds > 0. Never divides by zero.
RooflinePoint Evaluate(double flops, double bytes, double seconds, double peak_flops_per_s,
                       double bandwidth_bytes_per_s);

}  // namespace plasmient::roofline
