// Byte models for FBGEMM's recommender ops (embedding lookups, sparse permutes, row-wise
// quantization). They are gathers and copies: no FLOP model, bytes read and written.
#include <array>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

double Bytes(const OpArgs& args, int arg, Dtype fallback) { return ArgBytes(args, arg, fallback); }

// Quantize / dequantize: read the input, write as many elements at the output's width.
struct ConvertOp {
  std::string_view name;
  int out_width;  // bytes per output element
};

constexpr std::array kConvertOps = {
    ConvertOp{"fbgemm::FloatToFP8RowwiseQuantized", 1},
    ConvertOp{"fbgemm::FP8RowwiseQuantizedToFloat", 4},
    ConvertOp{"fbgemm::FloatToHFP8Quantized", 1},
    ConvertOp{"fbgemm::HFP8QuantizedToFloat", 4},
    ConvertOp{"fbgemm::FloatToFused8BitRowwiseQuantized", 1},
    ConvertOp{"fbgemm::Fused8BitRowwiseQuantizedToFloat", 4},
    ConvertOp{"fbgemm::FloatToBfloat16Quantized", 2},
    ConvertOp{"fbgemm::Bfloat16QuantizedToFloat", 4},
};

// Permutes of sparse features and pooled embeddings: every listed tensor is read and its
// permuted copy written.
constexpr std::array<std::string_view, 5> kPermuteOps = {
    "fbgemm::permute_2D_sparse_data", "fbgemm::permute_sparse_features", "fbgemm::permute_1D_sparse_data",
    "fbgemm::permute_pooled_embs_auto_grad", "fbgemm::permute_pooled_embs"};

bool SetBytes(std::string_view model, double bytes, const OpArgs& args, OpCost& cost) {
  if (bytes <= 0) return false;
  SetDtype(args, cost);
  cost.flops = 0;
  cost.bytes = bytes;
  cost.model = model;
  return true;
}

}  // namespace

bool EstimateSparseOp(std::string_view name, const OpArgs& args, OpCost& cost) {
  if (const ConvertOp* op = FindByName(kConvertOps, name)) {
    const double elements = static_cast<double>(Elements(args.Shape(0)));
    return SetBytes("quantize", Bytes(args, 0, Dtype::kFp32) + elements * op->out_width, args, cost);
  }
  for (std::string_view permute : kPermuteOps) {
    if (name != permute) continue;
    double bytes = 0;
    for (int i = 0; i < args.dims.arg_count(); ++i) bytes += 2 * Bytes(args, i, Dtype::kInt32);
    return SetBytes("permute", bytes, args, cost);
  }
  // Table-batched embedding lookups: indices[L] and offsets[B·T + 1] are read, one row per
  // index gathered and pooled. The rows' widths (D per table) are values the trace does not
  // show, so this counts the index traffic only: a lower bound on the bytes moved.
  if (name.starts_with("fbgemm::split_embedding_codegen_lookup_") && name.ends_with("_function")) {
    constexpr int kIndices = 11, kOffsets = 12;
    const double bytes = Bytes(args, kIndices, Dtype::kInt64) + Bytes(args, kOffsets, Dtype::kInt64);
    return SetBytes("embedding_lookup_indices", bytes, args, cost);
  }
  // Their backward passes, as autograd nodes carrying grad_output: the pooled-embedding permute
  // reads and writes it; the lookup's backward reads it (and updates the rows it touched, whose
  // widths are again unknown: a lower bound).
  if (name.starts_with("torch::autograd::CppNode<fbgemm_gpu::PermutePooledEmbsFunction")) {
    return SetBytes("permute_bwd", 2 * Bytes(args, 0, Dtype::kFp32), args, cost);
  }
  if (name.starts_with("torch::autograd::CppNode<SplitLookupFunction_")) {
    return SetBytes("embedding_lookup_bwd_grad", Bytes(args, 0, Dtype::kFp32), args, cost);
  }
  return false;
}

}  // namespace plasmient::roofline::internal
