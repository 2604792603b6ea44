// One kernel (or a sum of kernels) against the roofline: ceiling = min(P, AI · BW). The only place
// that formula and the memory-bound test (AI below the ridge point P / BW) are written; every
// stage after asks here.
#pragma once

namespace plasmient::roofline {

struct RooflinePoint {
  double ai = 0;                    // FLOP per byte; 0 when bytes are unknown
  double ceiling_flops_per_s = 0;   // min(P, AI·BW); P when bytes are unknown
  double achieved_flops_per_s = 0;  // flops / seconds
  double peak_fraction = 0;         // achieved / P
  // achieved / ceiling; for a byte-only model (no FLOPs, bytes known), the share of the memory
  // bandwidth achieved instead: bytes / seconds / BW.
  double roofline_fraction = 0;
  bool memory_bound = false;  // AI below the ridge point P / BW
};

// The ridge point P / BW, in FLOP per byte; 0 when the bandwidth is unknown (<= 0).
double RidgePoint(double peak_flops_per_s, double bandwidth_bytes_per_s);

// Whether an arithmetic intensity (FLOP per byte, >= 0) lies below the ridge point P / BW.
bool BelowRidge(double ai, double peak_flops_per_s, double bandwidth_bytes_per_s);

// The roof at an arithmetic intensity: min(P, AI · BW); P when the bandwidth is unknown (<= 0).
double CeilingAt(double ai, double peak_flops_per_s, double bandwidth_bytes_per_s);

// flops and bytes as modeled (bytes <= 0: unknown; flops < 0: unknown), seconds > 0. Never
// divides by zero.
RooflinePoint Evaluate(double flops, double bytes, double seconds, double peak_flops_per_s,
                       double bandwidth_bytes_per_s);

}  // namespace plasmient::roofline
