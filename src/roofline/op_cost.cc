#include "roofline/op_cost.h"

#include "roofline/op_args.h"

namespace plasmient::roofline {
namespace internal {

Dtype OpArgs::FirstTensorDtype() const {
  for (int i = 0; i < dims.arg_count(); ++i) {
    if (dims.IsList(i) || dims.Shape(i).empty()) continue;
    Dtype d = ArgDtype(i);
    if (d != Dtype::kUnknown) return d;
  }
  return Dtype::kUnknown;
}

int OpArgs::Width(int arg, Dtype op_dtype) const {
  if (int w = DtypeBytes(ArgDtype(arg)); w > 0) return w;
  if (int w = DtypeBytes(op_dtype); w > 0) return w;
  if (int w = DtypeBytes(context_dtype); w > 0) return w;
  return 4;
}

void SetDtype(const OpArgs& args, OpCost& cost) {
  cost.dtype = args.FirstTensorDtype();
  if (cost.dtype == Dtype::kUnknown) {
    cost.dtype_assumed = true;
    cost.dtype = args.context_dtype != Dtype::kUnknown ? args.context_dtype : Dtype::kFp32;
  }
}

double ArgBytes(const OpArgs& args, int arg, Dtype op_dtype) {
  ShapeSpan s = args.Shape(arg);
  if (s.empty()) return 0;
  return static_cast<double>(Elements(s)) * args.Width(arg, op_dtype);
}

}  // namespace internal

OpCost EstimateOp(std::string_view op_name, std::string_view input_dims, std::string_view input_types,
                  std::string_view concrete_inputs, Dtype context_dtype,
                  std::span<const std::int64_t> conv_output) {
  OpCost cost;
  if (op_name.empty() || input_dims.empty()) return cost;
  internal::OpArgs args;
  args.context_dtype = context_dtype;
  args.conv_output = conv_output;
  // A truncated argument list (JIT graph ops with hundreds of inputs) has no model.
  if (!args.dims.Parse(input_dims) || args.dims.truncated()) return cost;
  if (!input_types.empty() && !args.types.Parse(input_types)) return cost;
  args.has_concrete = !concrete_inputs.empty() && args.concrete.Parse(concrete_inputs);

  std::string_view name = op_name;
  if (name.starts_with("aten::")) name.remove_prefix(6);
  if (internal::EstimateGemm(name, args, cost) || internal::EstimateConv(name, args, cost) ||
      internal::EstimateAttention(name, args, cost) || internal::EstimateMoe(name, args, cost) ||
      internal::EstimateSparseOp(name, args, cost) || internal::EstimateCompiledKernel(name, args, cost) ||
      internal::EstimateMemoryOp(name, args, cost)) {
    return cost;
  }
  return OpCost{};
}

}  // namespace plasmient::roofline
