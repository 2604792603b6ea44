// The options the verdict's tests analyze with: an H100 SXM with round peaks, so that expected
// fractions can be written by hand (ridge point 100 FLOP/B), and a bf16 GEMM's recorded shapes.
#pragma once

#include <string_view>

#include "verdict/options.h"

namespace plasmient::verdict::testing {

inline constexpr double kPeak = 100e12;  // FLOP/s
inline constexpr double kBw = 1e12;      // B/s: ridge point 100 FLOP/B

inline AnalyzeOptions TestOptions() {
  AnalyzeOptions o;
  o.gpu = "h100_sxm";
  o.peak_flops_per_s = kPeak;
  o.memory_bandwidth_bytes_per_s = kBw;
  return o;
}

// aten::mm of two 1024 × 1024 bf16 matrices, as Kineto records its "Input Dims" and "Input type".
inline constexpr std::string_view kMmDims = "[[1024,1024],[1024,1024]]";
inline constexpr std::string_view kMmTypes = "[\"c10::BFloat16\",\"c10::BFloat16\"]";

}  // namespace plasmient::verdict::testing
