// Kernel costs: each GPU activity's FLOPs and bytes, from the op that launched it
// (docs/verdict.md: an op's cost goes to its heavy kernels, split by duration).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "join/join.h"
#include "model/trace.h"
#include "roofline/dtype.h"
#include "verdict/gemm_shapes.h"

namespace plasmient::verdict {

struct KernelCosts {
  std::vector<double> flops;  // -1 when no FLOP model reached the kernel
  std::vector<double> bytes;  // -1 when no byte model reached the kernel
  std::vector<roofline::Dtype> dtype;
  std::vector<model::CpuOpRowId> cost_op;  // CpuOps row whose model priced the kernel, or none
  std::vector<char> backward;              // launched under autograd's backward pass
  std::vector<char> heavy_op;              // priced by a GEMM/conv/attention model
  std::vector<char> attention;             // priced by an attention model (OpCost::attention)
  // Of its bytes, the share that does not grow with the batch: the pricing op's
  // OpCost::weight_bytes over its bytes; 0 when it has none or no byte model.
  std::vector<double> weight_share;
  std::vector<double> op_ai;  // the pricing op's FLOPs/bytes; -1 when bytes are unknown
  GemmShapes gemm_mnk;        // the pricing GEMM's M, N, K; zeros otherwise
};

// `kept[i]` selects the activities to price; others get no cost. Ops whose models fell short are
// counted in `quality`.
KernelCosts PriceKernels(const model::Trace& trace, const join::Joined& joined, const std::vector<char>& kept,
                         model::DataQuality& quality);

}  // namespace plasmient::verdict
