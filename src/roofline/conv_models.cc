// Convolution FLOP models: 2·N·K·(C/g)·Π kernel · Π out, any spatial rank.
#include <array>
#include <optional>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

constexpr int kMaxSpatial = 3;

// Where an op keeps its geometry arguments; -1 = the op has no such argument.
struct ConvLayout {
  std::string_view name;
  int input, weight, grad_output;  // argument indices; grad_output only for backward ops
  int stride, padding, dilation, transposed_arg;
  bool transposed;
  double flop_factor;    // 1 forward, 2 backward (grad input + grad weight)
  int output_mask = -1;  // backward: the bool[3] (grad input, grad weight, grad bias) it computes
};

// clang-format off
constexpr std::array kConvLayouts = {
    //          name                          in  w  gout str pad dil tr  transposed factor
    ConvLayout{"conv1d",                       0, 1, -1,  3,  4,  5, -1, false, 1},
    ConvLayout{"conv2d",                       0, 1, -1,  3,  4,  5, -1, false, 1},
    ConvLayout{"conv3d",                       0, 1, -1,  3,  4,  5, -1, false, 1},
    ConvLayout{"convolution",                  0, 1, -1,  3,  4,  5,  6, false, 1},
    ConvLayout{"_convolution",                 0, 1, -1,  3,  4,  5,  6, false, 1},
    ConvLayout{"cudnn_convolution",            0, 1, -1,  3,  2,  4, -1, false, 1},
    ConvLayout{"miopen_convolution",           0, 1, -1,  4,  3,  5, -1, false, 1},
    ConvLayout{"mkldnn_convolution",           0, 1, -1,  4,  3,  5, -1, false, 1},
    ConvLayout{"conv_transpose1d",             0, 1, -1,  3,  4,  7, -1, true,  1},
    ConvLayout{"conv_transpose2d",             0, 1, -1,  3,  4,  7, -1, true,  1},
    ConvLayout{"conv_transpose3d",             0, 1, -1,  3,  4,  7, -1, true,  1},
    ConvLayout{"cudnn_convolution_transpose",  0, 1, -1,  4,  2,  5, -1, true,  1},
    ConvLayout{"miopen_convolution_transpose", 0, 1, -1,  5,  3,  6, -1, true,  1},
    ConvLayout{"convolution_backward",         1, 2,  0, -1, -1, -1,  7, false, 2, 10},
    ConvLayout{"cudnn_convolution_backward",   0, 2,  1, -1, -1, -1, -1, false, 2, 10},
    ConvLayout{"miopen_convolution_backward",  0, 2,  1, -1, -1, -1, -1, false, 2,  9},
};
// clang-format on

// How many of grad input and grad weight a backward op computes, from its output_mask
// ("[True, True, False]"; "[False, True, False]" for a stem convolution, whose input needs no
// gradient): 2 when the mask is absent or unreadable.
int BackwardHalves(const ConvLayout& layout, const OpArgs& args) {
  if (layout.output_mask < 0 || !args.has_concrete) return 2;
  std::string_view text = args.Concrete(layout.output_mask);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return 2;
  text = text.substr(1, text.size() - 2);
  int halves = 0;
  for (int i = 0; i < 2; ++i) {
    const std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const std::optional<bool> v = ParseBool(item);
    if (!v) return 2;
    halves += *v ? 1 : 0;
    if (comma == std::string_view::npos) return i == 1 ? halves : 2;
    text.remove_prefix(comma + 1);
  }
  return halves;
}

// A Concrete Inputs int list, repeated to `rank` entries when given as one value.
bool ConcreteInts(const OpArgs& args, int arg, int rank, std::array<std::int64_t, kMaxSpatial>& out) {
  if (arg < 0 || !args.has_concrete) return false;
  std::array<std::int64_t, kMaxSpatial> buf{};
  auto n = ParseIntList(args.Concrete(arg), buf);
  if (!n) {
    auto v = ParseInt(args.Concrete(arg));
    if (!v) return false;
    buf[0] = *v;
    n = 1;
  }
  if (*n != 1 && *n != rank) return false;
  for (int i = 0; i < rank; ++i) out[i] = buf[*n == 1 ? 0 : i];
  return true;
}

double SpatialProduct(ShapeSpan shape, int first) {
  double p = 1;
  for (std::size_t i = first; i < shape.size(); ++i) p *= static_cast<double>(shape[i]);
  return p;
}

// Output spatial sizes from geometry; false when the geometry is absent (size assumed).
bool OutputSpatial(const ConvLayout& layout, const OpArgs& args, ShapeSpan x, ShapeSpan w, int batch_dims,
                   std::array<std::int64_t, kMaxSpatial>& out) {
  const int rank = static_cast<int>(w.size()) - 2;
  std::array<std::int64_t, kMaxSpatial> stride{}, padding{}, dilation{};
  for (int i = 0; i < rank; ++i) {
    out[i] = x[batch_dims + 1 + i];
    dilation[i] = 1;
  }
  std::string_view pad_text = layout.padding >= 0 ? args.Concrete(layout.padding) : std::string_view{};
  if (pad_text == "same") return true;  // conv*d(padding="same"): stride must be 1
  if (!ConcreteInts(args, layout.stride, rank, stride)) return false;
  if (pad_text == "valid") {
    padding = {};
  } else if (!ConcreteInts(args, layout.padding, rank, padding)) {
    return false;
  }
  if (!ConcreteInts(args, layout.dilation, rank, dilation)) dilation = {1, 1, 1};
  for (int i = 0; i < rank; ++i) {
    if (stride[i] <= 0) return false;
    std::int64_t span = dilation[i] * (w[2 + i] - 1) + 1;
    out[i] = (x[batch_dims + 1 + i] + 2 * padding[i] - span) / stride[i] + 1;
  }
  return true;
}

// The output shape the trace shows elsewhere, when its batch and channel agree with the op.
bool OutputFromTrace(ShapeSpan hint, ShapeSpan x, ShapeSpan w, int batch_dims,
                     std::array<std::int64_t, kMaxSpatial>& out) {
  const std::size_t rank = w.size() - 2;
  if (hint.size() != x.size() || hint[batch_dims] != w[0]) return false;
  if (batch_dims == 1 && hint[0] != x[0]) return false;
  for (std::size_t i = 0; i < rank; ++i) {
    if (hint[batch_dims + 1 + i] <= 0) return false;
    out[i] = hint[batch_dims + 1 + i];
  }
  return true;
}

// cudnn_convolution_backward_input(self_size, grad_output, weight, ...) and
// cudnn_convolution_backward_weight(weight_size, grad_output, self, ...): one half of the
// backward each, so 1 × forward. The sizes of the missing tensor come from Concrete Inputs.
bool EstimateConvBackwardHalf(std::string_view name, const OpArgs& args, OpCost& cost) {
  const bool input_half =
      name == "cudnn_convolution_backward_input" || name == "miopen_convolution_backward_input";
  const bool weight_half =
      name == "cudnn_convolution_backward_weight" || name == "miopen_convolution_backward_weight";
  if (!input_half && !weight_half) return false;
  ShapeSpan gout = args.Shape(1);
  std::array<std::int64_t, kMaxSpatial + 2> size_buf{};
  std::optional<int> size_rank;
  if (args.has_concrete) size_rank = ParseIntList(args.Concrete(0), size_buf);
  ShapeSpan w = input_half ? args.Shape(2) : ShapeSpan{};
  if (weight_half) {
    if (!size_rank || *size_rank != static_cast<int>(gout.size())) return false;  // kernel size unknown
    w = ShapeSpan(size_buf.data(), static_cast<std::size_t>(*size_rank));
  }
  if (gout.size() < 3 || w.size() != gout.size()) return false;
  SetDtype(args, cost);
  const double width = args.Width(1, cost.dtype);
  cost.flops = 2.0 * static_cast<double>(gout[0]) * static_cast<double>(w[0]) * static_cast<double>(w[1]) *
               SpatialProduct(w, 2) * SpatialProduct(gout, 2);
  double missing = 0;  // the tensor given only as a size: grad input, or the weight (written)
  if (input_half && size_rank && *size_rank == static_cast<int>(gout.size())) {
    missing = static_cast<double>(Elements(ShapeSpan(size_buf.data(), static_cast<std::size_t>(*size_rank))));
  } else if (weight_half) {
    missing = static_cast<double>(Elements(w));
  }
  cost.bytes = ArgBytes(args, 1, cost.dtype) + ArgBytes(args, 2, cost.dtype) + missing * width;
  cost.model = "conv_bwd";
  cost.heavy = true;
  cost.backward = true;
  return cost.flops > 0;
}

}  // namespace

bool EstimateConv(std::string_view name, const OpArgs& args, OpCost& cost) {
  if (EstimateConvBackwardHalf(name, args, cost)) return true;
  const ConvLayout* layout = FindByName(kConvLayouts, name);
  if (layout == nullptr) return false;
  ShapeSpan x = args.Shape(layout->input), w = args.Shape(layout->weight);
  const int rank = static_cast<int>(w.size()) - 2;
  if (rank < 1 || rank > kMaxSpatial) return false;
  // Batched input has rank + 2 dims; unbatched (PyTorch allows it) rank + 1.
  int batch_dims = static_cast<int>(x.size()) - (rank + 1);
  if (batch_dims != 0 && batch_dims != 1) return false;
  const double n = batch_dims == 1 ? static_cast<double>(x[0]) : 1.0;
  bool transposed = layout->transposed;
  if (layout->transposed_arg >= 0 && args.has_concrete) {
    transposed = ParseBool(args.Concrete(layout->transposed_arg)).value_or(transposed);
  }
  SetDtype(args, cost);
  const double kernel = SpatialProduct(w, 2);
  const double w1 = static_cast<double>(w[1]);
  double out_elems = 0;
  if (transposed) {
    // Each input element meets w[1]·Π kernel weights: 2·N·C_in·(C_out/g)·Π kernel·Π in.
    cost.flops = 2.0 * n * static_cast<double>(w[0]) * w1 * kernel * SpatialProduct(x, batch_dims + 1);
  } else if (layout->grad_output >= 0) {
    ShapeSpan gout = args.Shape(layout->grad_output);
    if (gout.size() != x.size()) return false;
    out_elems = static_cast<double>(Elements(gout));
    cost.flops = 2.0 * n * static_cast<double>(w[0]) * w1 * kernel * SpatialProduct(gout, batch_dims + 1);
  } else {
    std::array<std::int64_t, kMaxSpatial> out{};
    if (!OutputSpatial(*layout, args, x, w, batch_dims, out)) {
      cost.conv_output_from_trace = OutputFromTrace(args.conv_output, x, w, batch_dims, out);
      cost.conv_assumed_geometry = !cost.conv_output_from_trace;
    }
    double out_spatial = 1;
    for (int i = 0; i < rank; ++i) out_spatial *= static_cast<double>(out[i]);
    if (out_spatial <= 0) return false;
    cost.flops = 2.0 * n * static_cast<double>(w[0]) * w1 * kernel * out_spatial;
    out_elems = n * static_cast<double>(w[0]) * out_spatial;
  }
  // A backward op computes the halves its output_mask asks for: each costs one forward.
  const int halves = layout->grad_output >= 0 ? BackwardHalves(*layout, args) : 0;
  cost.flops *= layout->grad_output >= 0 ? halves : layout->flop_factor;
  const int width = args.Width(layout->input, cost.dtype);
  const double x_bytes = ArgBytes(args, layout->input, cost.dtype);
  const double w_bytes = ArgBytes(args, layout->weight, cost.dtype);
  if (layout->grad_output >= 0) {
    // Reads grad_output; grad input reads the weight and writes its input-sized gradient, grad
    // weight reads the input and writes its weight-sized gradient.
    cost.bytes = out_elems * width + halves * (x_bytes + w_bytes);
    cost.backward = true;
    cost.model = "conv_bwd";
  } else {
    if (transposed) out_elems = 0;  // output size needs output_padding; inputs dominate the count
    cost.bytes = x_bytes + w_bytes + out_elems * width;
    cost.model = "conv";
  }
  cost.heavy = true;
  return cost.flops > 0;
}

}  // namespace plasmient::roofline::internal
