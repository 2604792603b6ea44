// GEMM-class FLOP models: 2·M·N·K per (batched) product, bias ignored.
#include <algorithm>
#include <array>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

// Writes cost for out[batch, m, n] = a[batch, m, k] · b[batch, k, n]; extra_bytes for a bias.
bool SetGemm(std::string_view model, const OpArgs& args, int a, int b, double batch, std::int64_t m,
             std::int64_t n, std::int64_t k, double extra_bytes, OpCost& cost) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return false;
  SetDtype(args, cost);
  cost.model = model;
  cost.heavy = true;
  cost.flops = 2.0 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  double out_bytes = batch * static_cast<double>(m) * static_cast<double>(n) * args.Width(a, cost.dtype);
  cost.bytes = ArgBytes(args, a, cost.dtype) + ArgBytes(args, b, cost.dtype) + out_bytes + extra_bytes;
  return true;
}

bool Mm(std::string_view model, const OpArgs& args, int a, int b, double extra_bytes, OpCost& cost) {
  ShapeSpan x = args.Shape(a), y = args.Shape(b);
  if (x.size() != 2 || y.size() != 2 || x[1] != y[0]) return false;
  return SetGemm(model, args, a, b, 1, x[0], y[1], x[1], extra_bytes, cost);
}

bool Bmm(std::string_view model, const OpArgs& args, int a, int b, double extra_bytes, OpCost& cost) {
  ShapeSpan x = args.Shape(a), y = args.Shape(b);
  if (x.size() != 3 || y.size() != 3 || x[0] != y[0] || x[2] != y[1]) return false;
  return SetGemm(model, args, a, b, static_cast<double>(x[0]), x[1], y[2], x[2], extra_bytes, cost);
}

// torch.matmul semantics: 1-D operands are promoted and their dimension removed; batch
// dimensions broadcast.
bool Matmul(const OpArgs& args, OpCost& cost) {
  ShapeSpan x = args.Shape(0), y = args.Shape(1);
  if (x.empty() || y.empty()) return false;
  std::int64_t k = x.back();
  std::int64_t m = x.size() >= 2 ? x[x.size() - 2] : 1;
  std::int64_t ky = y.size() >= 2 ? y[y.size() - 2] : y[0];
  std::int64_t n = y.size() >= 2 ? y.back() : 1;
  if (k != ky) return false;
  ShapeSpan xb = x.size() > 2 ? x.first(x.size() - 2) : ShapeSpan{};
  ShapeSpan yb = y.size() > 2 ? y.first(y.size() - 2) : ShapeSpan{};
  double batch = 1;
  std::size_t rank = std::max(xb.size(), yb.size());
  for (std::size_t i = 0; i < rank; ++i) {  // right-aligned broadcast
    std::int64_t dx = i < xb.size() ? xb[xb.size() - 1 - i] : 1;
    std::int64_t dy = i < yb.size() ? yb[yb.size() - 1 - i] : 1;
    if (dx != dy && dx != 1 && dy != 1) return false;
    batch *= static_cast<double>(std::max(dx, dy));
  }
  return SetGemm("matmul", args, 0, 1, batch, m, n, k, 0, cost);
}

// linear(x[..., K], W[N, K], bias[N]?)
bool Linear(const OpArgs& args, OpCost& cost) {
  ShapeSpan x = args.Shape(0), w = args.Shape(1);
  if (x.empty() || w.empty() || w.size() > 2) return false;
  std::int64_t k = x.back();
  std::int64_t n = w.size() == 2 ? w[0] : 1;
  if (w.back() != k) return false;
  std::int64_t m = Elements(x.first(x.size() - 1));
  SetDtype(args, cost);
  return SetGemm("linear", args, 0, 1, 1, m, n, k, ArgBytes(args, 2, cost.dtype), cost);
}

}  // namespace

bool EstimateGemm(std::string_view name, const OpArgs& args, OpCost& cost) {
  if (name == "mm") return Mm("mm", args, 0, 1, 0, cost);
  if (name == "_scaled_mm") return Mm("scaled_mm", args, 0, 1, 0, cost);
  if (name == "addmm" || name == "_addmm_activation") {
    SetDtype(args, cost);
    return Mm("addmm", args, 1, 2, ArgBytes(args, 0, cost.dtype), cost);
  }
  if (name == "bmm") return Bmm("bmm", args, 0, 1, 0, cost);
  if (name == "baddbmm") {
    SetDtype(args, cost);
    return Bmm("baddbmm", args, 1, 2, ArgBytes(args, 0, cost.dtype), cost);
  }
  if (name == "matmul") return Matmul(args, cost);
  if (name == "linear") return Linear(args, cost);
  if (name == "mv" || name == "addmv") {
    int a = name == "mv" ? 0 : 1;
    ShapeSpan x = args.Shape(a), v = args.Shape(a + 1);
    if (x.size() != 2 || v.size() != 1 || x[1] != v[0]) return false;
    SetDtype(args, cost);
    double extra = name == "addmv" ? ArgBytes(args, 0, cost.dtype) : 0;
    return SetGemm(name == "mv" ? "mv" : "addmv", args, a, a + 1, 1, x[0], 1, x[1], extra, cost);
  }
  if (name == "dot" || name == "vdot") {
    ShapeSpan x = args.Shape(0), y = args.Shape(1);
    if (x.size() != 1 || y.size() != 1 || x[0] != y[0]) return false;
    return SetGemm("dot", args, 0, 1, 1, 1, 1, x[0], 0, cost);
  }
  return false;
}

}  // namespace plasmient::roofline::internal
