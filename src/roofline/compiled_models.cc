// Kernels of compiled regions that the profiler records as ops with shapes: Inductor's Triton
// kernels (triton_poi_* pointwise, triton_red_*/triton_per_* reductions) list every pointer
// argument — inputs and outputs — with its shape and dtype. Each is read or written once:
// bytes = Σ argument sizes; no FLOP model (pointwise and reduction work is memory-bound).
#include <array>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {

bool EstimateCompiledKernel(std::string_view name, const OpArgs& args, OpCost& cost) {
  constexpr std::array<std::string_view, 3> kPrefixes = {"triton_poi_", "triton_red_", "triton_per_"};
  bool compiled = false;
  for (std::string_view p : kPrefixes) compiled = compiled || name.starts_with(p);
  if (!compiled) return false;
  SetDtype(args, cost);
  double bytes = 0;
  for (int i = 0; i < args.dims.arg_count(); ++i) {
    if (!args.dims.IsList(i)) bytes += ArgBytes(args, i, cost.dtype);
  }
  if (bytes <= 0) return false;
  cost.flops = 0;
  cost.bytes = bytes;
  cost.model = name.starts_with("triton_poi_") ? "triton_pointwise" : "triton_reduction";
  return true;
}

}  // namespace plasmient::roofline::internal
