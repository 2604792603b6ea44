// Byte models for memory-bound ops. FLOPs are the elements produced (one per element):
// small next to any GEMM, enough to give an arithmetic intensity.
#include <algorithm>
#include <array>
#include <optional>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

enum class Kind : std::uint8_t {
  kElementwise,
  kFill,
  kReduction,
  kNorm,
  kNormBackward,
  kSoftmax,
  kSoftmaxBackward,
  kCopy,
  kToCopy,
  kEmbedding,
  kEmbeddingBackward,
  kIndexSelect,
  kConcat,
};

struct MemoryOp {
  std::string_view name;
  Kind kind;
};

// clang-format off
constexpr std::array kMemoryOps = {
    MemoryOp{"add", Kind::kElementwise}, MemoryOp{"add_", Kind::kElementwise},
    MemoryOp{"sub", Kind::kElementwise}, MemoryOp{"sub_", Kind::kElementwise},
    MemoryOp{"rsub", Kind::kElementwise}, MemoryOp{"mul", Kind::kElementwise},
    MemoryOp{"mul_", Kind::kElementwise}, MemoryOp{"div", Kind::kElementwise},
    MemoryOp{"div_", Kind::kElementwise}, MemoryOp{"neg", Kind::kElementwise},
    MemoryOp{"relu", Kind::kElementwise}, MemoryOp{"relu_", Kind::kElementwise},
    MemoryOp{"gelu", Kind::kElementwise}, MemoryOp{"gelu_", Kind::kElementwise},
    MemoryOp{"silu", Kind::kElementwise}, MemoryOp{"silu_", Kind::kElementwise},
    MemoryOp{"sigmoid", Kind::kElementwise}, MemoryOp{"sigmoid_", Kind::kElementwise},
    MemoryOp{"tanh", Kind::kElementwise}, MemoryOp{"tanh_", Kind::kElementwise},
    MemoryOp{"threshold", Kind::kElementwise}, MemoryOp{"threshold_", Kind::kElementwise},
    MemoryOp{"threshold_backward", Kind::kElementwise}, MemoryOp{"gelu_backward", Kind::kElementwise},
    MemoryOp{"silu_backward", Kind::kElementwise}, MemoryOp{"sigmoid_backward", Kind::kElementwise},
    MemoryOp{"tanh_backward", Kind::kElementwise}, MemoryOp{"clamp", Kind::kElementwise},
    MemoryOp{"clamp_", Kind::kElementwise}, MemoryOp{"clamp_min", Kind::kElementwise},
    MemoryOp{"clamp_min_", Kind::kElementwise}, MemoryOp{"clamp_max", Kind::kElementwise},
    MemoryOp{"clamp_max_", Kind::kElementwise}, MemoryOp{"pow", Kind::kElementwise},
    MemoryOp{"sqrt", Kind::kElementwise}, MemoryOp{"rsqrt", Kind::kElementwise},
    MemoryOp{"exp", Kind::kElementwise}, MemoryOp{"log", Kind::kElementwise},
    MemoryOp{"log2", Kind::kElementwise}, MemoryOp{"abs", Kind::kElementwise},
    MemoryOp{"sin", Kind::kElementwise}, MemoryOp{"cos", Kind::kElementwise},
    MemoryOp{"reciprocal", Kind::kElementwise}, MemoryOp{"where", Kind::kElementwise},
    MemoryOp{"masked_fill", Kind::kElementwise}, MemoryOp{"masked_fill_", Kind::kElementwise},
    MemoryOp{"eq", Kind::kElementwise}, MemoryOp{"ne", Kind::kElementwise},
    MemoryOp{"lt", Kind::kElementwise}, MemoryOp{"gt", Kind::kElementwise},
    MemoryOp{"le", Kind::kElementwise}, MemoryOp{"ge", Kind::kElementwise},
    MemoryOp{"addcmul_", Kind::kElementwise}, MemoryOp{"addcdiv_", Kind::kElementwise},
    MemoryOp{"lerp_", Kind::kElementwise}, MemoryOp{"native_dropout", Kind::kElementwise},
    MemoryOp{"dropout", Kind::kElementwise}, MemoryOp{"mse_loss", Kind::kReduction},
    MemoryOp{"mse_loss_backward", Kind::kElementwise},
    MemoryOp{"binary_cross_entropy_with_logits", Kind::kReduction},
    MemoryOp{"fill_", Kind::kFill}, MemoryOp{"zero_", Kind::kFill},
    MemoryOp{"sum", Kind::kReduction}, MemoryOp{"mean", Kind::kReduction},
    MemoryOp{"max", Kind::kReduction}, MemoryOp{"min", Kind::kReduction},
    MemoryOp{"amax", Kind::kReduction}, MemoryOp{"amin", Kind::kReduction},
    MemoryOp{"argmax", Kind::kReduction}, MemoryOp{"argmin", Kind::kReduction},
    MemoryOp{"prod", Kind::kReduction}, MemoryOp{"norm", Kind::kReduction},
    MemoryOp{"linalg_vector_norm", Kind::kReduction}, MemoryOp{"var", Kind::kReduction},
    MemoryOp{"std", Kind::kReduction}, MemoryOp{"var_mean", Kind::kReduction},
    MemoryOp{"logsumexp", Kind::kReduction}, MemoryOp{"all", Kind::kReduction},
    MemoryOp{"any", Kind::kReduction},
    MemoryOp{"layer_norm", Kind::kNorm}, MemoryOp{"native_layer_norm", Kind::kNorm},
    MemoryOp{"batch_norm", Kind::kNorm}, MemoryOp{"_batch_norm_impl_index", Kind::kNorm},
    MemoryOp{"native_batch_norm", Kind::kNorm}, MemoryOp{"cudnn_batch_norm", Kind::kNorm},
    MemoryOp{"miopen_batch_norm", Kind::kNorm}, MemoryOp{"_native_batch_norm_legit", Kind::kNorm},
    MemoryOp{"_native_batch_norm_legit_no_training", Kind::kNorm},
    MemoryOp{"rms_norm", Kind::kNorm}, MemoryOp{"_fused_rms_norm", Kind::kNorm},
    MemoryOp{"group_norm", Kind::kNorm}, MemoryOp{"native_group_norm", Kind::kNorm},
    MemoryOp{"instance_norm", Kind::kNorm},
    MemoryOp{"native_layer_norm_backward", Kind::kNormBackward},
    MemoryOp{"native_batch_norm_backward", Kind::kNormBackward},
    MemoryOp{"cudnn_batch_norm_backward", Kind::kNormBackward},
    MemoryOp{"miopen_batch_norm_backward", Kind::kNormBackward},
    MemoryOp{"native_group_norm_backward", Kind::kNormBackward},
    MemoryOp{"_fused_rms_norm_backward", Kind::kNormBackward},
    MemoryOp{"softmax", Kind::kSoftmax}, MemoryOp{"_softmax", Kind::kSoftmax},
    MemoryOp{"log_softmax", Kind::kSoftmax}, MemoryOp{"_log_softmax", Kind::kSoftmax},
    MemoryOp{"_safe_softmax", Kind::kSoftmax},
    MemoryOp{"_softmax_backward_data", Kind::kSoftmaxBackward},
    MemoryOp{"_log_softmax_backward_data", Kind::kSoftmaxBackward},
    MemoryOp{"copy_", Kind::kCopy}, MemoryOp{"to", Kind::kToCopy}, MemoryOp{"_to_copy", Kind::kToCopy},
    MemoryOp{"contiguous", Kind::kToCopy}, MemoryOp{"clone", Kind::kToCopy},
    MemoryOp{"embedding", Kind::kEmbedding},
    MemoryOp{"embedding_backward", Kind::kEmbeddingBackward},
    MemoryOp{"embedding_dense_backward", Kind::kEmbeddingBackward},
    MemoryOp{"index_select", Kind::kIndexSelect},
    MemoryOp{"cat", Kind::kConcat}, MemoryOp{"_cat", Kind::kConcat}, MemoryOp{"stack", Kind::kConcat},
};
// clang-format on

struct Totals {
  double bytes = 0;                         // all tensor arguments (list members included) at their widths
  int tensors = 0;                          // non-scalar tensor arguments
  std::array<std::int64_t, 8> broadcast{};  // right-aligned broadcast shape of plain tensors
  int broadcast_rank = 0;
};

Totals SumTensors(const OpArgs& args, Dtype dtype) {
  Totals t;
  for (int i = 0; i < args.dims.arg_count(); ++i) {
    if (args.dims.IsList(i)) {
      for (int j = 0; j < args.dims.ShapeCount(i); ++j) {
        ShapeSpan s = args.dims.ListShape(i, j);
        if (s.empty()) continue;
        t.bytes += static_cast<double>(Elements(s)) * args.Width(-1, dtype);
        ++t.tensors;
      }
      continue;
    }
    ShapeSpan s = args.Shape(i);
    if (s.empty()) continue;
    t.bytes += ArgBytes(args, i, dtype);
    ++t.tensors;
    const int rank = static_cast<int>(std::min<std::size_t>(s.size(), t.broadcast.size()));
    for (int d = 0; d < rank; ++d) {  // d counts from the right
      std::int64_t& b = t.broadcast[d];
      std::int64_t v = s[s.size() - 1 - d];
      b = (b == 0 || b == 1) ? v : b;
    }
    t.broadcast_rank = std::max(t.broadcast_rank, rank);
  }
  return t;
}

double BroadcastElements(const Totals& t) {
  double n = 1;
  for (int d = 0; d < t.broadcast_rank; ++d) n *= static_cast<double>(t.broadcast[d]);
  return n;
}

// Output elements of a reduction: input elements divided by the reduced extents
// (dims from Concrete Inputs argument 1; absent or [] = all dims).
double ReducedElements(const OpArgs& args) {
  ShapeSpan s = args.Shape(0);
  std::array<std::int64_t, 8> dims{};
  std::optional<int> n;
  if (args.has_concrete) {
    n = ParseIntList(args.Concrete(1), dims);
    if (!n) {
      if (auto d = ParseInt(args.Concrete(1))) {
        dims[0] = *d;
        n = 1;
      }
    }
  }
  if (!n || *n == 0) return 1;
  double out = static_cast<double>(Elements(s));
  for (int i = 0; i < *n; ++i) {
    std::int64_t d = dims[i] < 0 ? dims[i] + static_cast<std::int64_t>(s.size()) : dims[i];
    if (d < 0 || d >= static_cast<std::int64_t>(s.size()) || s[d] == 0) return 1;
    out /= static_cast<double>(s[d]);
  }
  return out;
}

bool Finish(std::string_view model, double flops, double bytes, bool backward, OpCost& cost) {
  if (bytes <= 0) return false;
  cost.model = model;
  cost.flops = flops;
  cost.bytes = bytes;
  cost.backward = backward;
  return true;
}

}  // namespace

bool EstimateMemoryOp(std::string_view name, const OpArgs& args, OpCost& cost) {
  const MemoryOp* op = FindByName(kMemoryOps, name);
  const bool foreach = op == nullptr && name.starts_with("_foreach_");
  if (op == nullptr && !foreach) return false;
  SetDtype(args, cost);
  const Dtype dtype = cost.dtype;
  const Totals t = SumTensors(args, dtype);
  if (t.tensors == 0) return false;
  const double width = DtypeBytes(dtype);
  if (foreach) {  // out-of-place or in-place over the first list: one output per member
    double first = 0;
    for (int j = 0; j < args.dims.ShapeCount(0); ++j)
      first += static_cast<double>(Elements(args.dims.ListShape(0, j)));
    if (!args.dims.IsList(0)) return false;
    return Finish("elementwise", first, t.bytes + first * width, false, cost);
  }
  const double in0 = static_cast<double>(Elements(args.Shape(0)));
  switch (op->kind) {
    case Kind::kElementwise: {
      // In PyTorch the _backward ops here are elementwise over grad and input.
      const double out = BroadcastElements(t);
      return Finish("elementwise", out, t.bytes + out * width, name.ends_with("_backward"), cost);
    }
    case Kind::kFill:
      return Finish("elementwise", in0, in0 * width, false, cost);
    case Kind::kReduction: {
      if (t.tensors >= 2 && name != "mse_loss" && name != "binary_cross_entropy_with_logits") {
        const double out = BroadcastElements(t);  // max(a, b), min(a, b): elementwise
        return Finish("elementwise", out, t.bytes + out * width, false, cost);
      }
      const double out =
          name == "mse_loss" || name == "binary_cross_entropy_with_logits" ? 1 : ReducedElements(args);
      return Finish("reduction", in0, t.bytes + out * width, false, cost);
    }
    case Kind::kNorm:
      return Finish("norm", in0, t.bytes + in0 * width, false, cost);
    case Kind::kNormBackward:  // grad input; parameter grads (channel-sized) neglected
      return Finish("norm_bwd", in0, t.bytes + in0 * width, true, cost);
    case Kind::kSoftmax:
      return Finish("softmax", in0, t.bytes + in0 * width, false, cost);
    case Kind::kSoftmaxBackward:
      return Finish("softmax_bwd", in0, t.bytes + in0 * width, true, cost);
    case Kind::kCopy:  // copy_(self, src): read src, write self, each at its own width
      return Finish("copy", in0, ArgBytes(args, 0, dtype) + ArgBytes(args, 1, dtype), false, cost);
    case Kind::kToCopy: {
      Dtype target = dtype;
      if (args.has_concrete && (name == "to" || name == "_to_copy") && args.types[1] == "Scalar") {
        if (auto code = ParseInt(args.Concrete(1))) {
          if (Dtype d = DtypeFromScalarTypeCode(static_cast<int>(*code)); d != Dtype::kUnknown) target = d;
        }
      }
      return Finish("copy", in0, ArgBytes(args, 0, dtype) + in0 * DtypeBytes(target), false, cost);
    }
    case Kind::kEmbedding: {  // rows gathered: indices read, rows read and written
      ShapeSpan w = args.Shape(0);
      if (w.size() != 2) return false;
      const double out = static_cast<double>(Elements(args.Shape(1))) * static_cast<double>(w[1]);
      return Finish("gather", out, ArgBytes(args, 1, dtype) + 2 * out * args.Width(0, dtype), false, cost);
    }
    case Kind::kEmbeddingBackward: {  // grad_output scattered into a dense [num_weights, D] grad
      ShapeSpan g = args.Shape(0);
      if (g.empty()) return false;
      double out = in0;
      if (args.has_concrete) {
        if (auto rows = ParseInt(args.Concrete(2)))
          out = static_cast<double>(*rows) * static_cast<double>(g.back());
      }
      return Finish("gather_bwd", in0, t.bytes + out * width, true, cost);
    }
    case Kind::kIndexSelect: {  // index_select(self, dim, index)
      ShapeSpan s = args.Shape(0);
      if (s.empty()) return false;
      std::int64_t dim = args.has_concrete ? ParseInt(args.Concrete(1)).value_or(0) : 0;
      if (dim < 0) dim += static_cast<std::int64_t>(s.size());
      if (dim < 0 || dim >= static_cast<std::int64_t>(s.size()) || s[dim] == 0) return false;
      const double out = in0 / static_cast<double>(s[dim]) * static_cast<double>(Elements(args.Shape(2)));
      return Finish("gather", out, ArgBytes(args, 2, dtype) + 2 * out * args.Width(0, dtype), false, cost);
    }
    case Kind::kConcat: {  // every input read once, the output written once
      return Finish("cat", t.bytes / std::max(width, 1.0), 2 * t.bytes, false, cost);
    }
  }
  return false;
}

}  // namespace plasmient::roofline::internal
