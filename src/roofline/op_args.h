// Internal to the op cost models: one op's parsed arguments and shape helpers.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "roofline/dtype.h"
#include "roofline/op_args_parser.h"
#include "roofline/op_cost.h"

namespace plasmient::roofline::internal {

using ShapeSpan = std::span<const std::int64_t>;

struct OpArgs {
  OpDims dims;
  StringArray types;
  StringArray concrete;
  bool has_concrete = false;
  Dtype context_dtype = Dtype::kUnknown;
  ShapeSpan conv_output;  // EstimateOp's conv_output hint; empty when none

  ShapeSpan Shape(int arg) const { return dims.Shape(arg); }
  int Rank(int arg) const { return static_cast<int>(dims.Shape(arg).size()); }
  Dtype ArgDtype(int arg) const { return ParseTorchDtype(types[arg]); }
  // The dtype of the first non-scalar tensor argument with a known type.
  Dtype FirstTensorDtype() const;
  // Bytes per element for arg, falling back to the op dtype, then the context dtype, then fp32.
  int Width(int arg, Dtype op_dtype) const;
  // A Concrete Inputs value, "" when absent.
  std::string_view Concrete(int arg) const { return concrete[arg]; }
};

// Fills dtype and dtype_assumed from the first typed tensor argument.
void SetDtype(const OpArgs& args, OpCost& cost);
// Bytes of one plain tensor argument at its width.
double ArgBytes(const OpArgs& args, int arg, Dtype op_dtype);

// The row of a constexpr table whose .name is name, or nullptr.
template <typename Row, std::size_t N>
const Row* FindByName(const std::array<Row, N>& table, std::string_view name) {
  for (const Row& row : table) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

bool EstimateGemm(std::string_view name, const OpArgs& args, OpCost& cost);
bool EstimateConv(std::string_view name, const OpArgs& args, OpCost& cost);
bool EstimateAttention(std::string_view name, const OpArgs& args, OpCost& cost);
bool EstimateMemoryOp(std::string_view name, const OpArgs& args, OpCost& cost);
bool EstimateMoe(std::string_view name, const OpArgs& args, OpCost& cost);
bool EstimateCompiledKernel(std::string_view name, const OpArgs& args, OpCost& cost);
bool EstimateSparseOp(std::string_view name, const OpArgs& args, OpCost& cost);

}  // namespace plasmient::roofline::internal
