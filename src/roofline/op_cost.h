// FLOP and byte models for PyTorch ops from the profiler's "Input Dims", "Input type"
// and "Concrete Inputs" texts. Conventions: /docs/verdict.md "FLOP conventions";
// the models and their assumptions: docs/flop-models.md.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "roofline/dtype.h"

namespace plasmient::roofline {

struct OpCost {
  double flops = -1;  // -1: no FLOP model
  double bytes = -1;  // -1: no byte model
  // Of bytes, those that stay the same when the batch grows: the weight operand of a GEMM
  // (linear's weight and bias, addmm's bias and second operand, mm's and matmul's second
  // operand, read as x · W). 0 for every other model: all of its bytes grow with the batch.
  double weight_bytes = 0;
  Dtype dtype = Dtype::kUnknown;
  // A GEMM's problem, one product of the batch: M, N, K (out[M, N] = a[M, K] · b[K, N]); zeros
  // for every other model.
  std::array<std::int64_t, 3> gemm_mnk{};
  std::string_view model;  // "mm", "conv", "sdpa_fwd", "elementwise"...; empty = no model
  bool heavy = false;      // GEMM/conv/attention class: its heavy kernels get the FLOPs
  bool backward = false;
  bool conv_assumed_geometry = false;   // stride/padding absent: stride 1, output size = input size
  bool conv_output_from_trace = false;  // stride/padding absent: output size from conv_output
  bool dtype_assumed = false;           // element type unknown: bytes use the context dtype (or fp32)

  bool modeled() const { return !model.empty(); }
  // An attention model: in decode its bytes are the KV cache read per token.
  bool attention() const {
    return model.starts_with("sdpa") || model.find("attention") != std::string_view::npos;
  }
};

// op_name as traced ("aten::mm", "aten::_scaled_dot_product_flash_attention"...).
// context_dtype is used for tensors whose element type the trace does not give (TensorList
// arguments, traces without "Input type"); kUnknown means fp32 widths are assumed.
// conv_output: for a convolution whose stride and padding the trace does not give, the shape
// of its output as the trace shows it elsewhere ([N, C_out, spatial...]: the input of the op
// that consumed it, or the backward pass's grad_output); used when N and C_out agree.
// An op without a model returns model empty and flops = bytes = -1. Never fails.
OpCost EstimateOp(std::string_view op_name, std::string_view input_dims, std::string_view input_types,
                  std::string_view concrete_inputs, Dtype context_dtype = Dtype::kUnknown,
                  std::span<const std::int64_t> conv_output = {});

}  // namespace plasmient::roofline
