// GEMM-class FLOP models: 2·M·N·K per (batched) product, bias ignored.
#include <algorithm>
#include <array>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

// Writes cost for out[batch, m, n] = a[batch, m, k] · b[batch, k, n]; extra_bytes for a bias.
// A 2-D b (no batch of its own) and the bias are weights: they do not grow with the batch.
bool SetGemm(std::string_view model, const OpArgs& args, int a, int b, double batch, std::int64_t m,
             std::int64_t n, std::int64_t k, double extra_bytes, OpCost& cost) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return false;
  SetDtype(args, cost);
  cost.model = model;
  cost.heavy = true;
  cost.gemm_mnk = {m, n, k};
  cost.flops = 2.0 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  double out_bytes = batch * static_cast<double>(m) * static_cast<double>(n) * args.Width(a, cost.dtype);
  cost.bytes = ArgBytes(args, a, cost.dtype) + ArgBytes(args, b, cost.dtype) + out_bytes + extra_bytes;
  if (args.Rank(b) == 2) cost.weight_bytes = ArgBytes(args, b, cost.dtype) + extra_bytes;
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

// fp4 operands are stored two to an element (Float4_e2m1fn_x2, or uint8 MX payloads beside
// e8m0 scales): the contraction is twice the stored K.
void UnpackFp4(OpCost& cost) {
  if (cost.dtype != Dtype::kFp4 || !cost.modeled()) return;
  cost.flops *= 2;
}

// _grouped_mm(a, b, offs?, ...) and _scaled_grouped_mm(a, b, scale_a, scale_b, offs?, ...):
// groups of GEMMs in one kernel (MoE experts). offs splits the 2-D operand's rows (or K, or
// N) among the groups, so the FLOPs are those of the whole operands whatever the split:
//   2-D a[M,K] × 3-D b[G,K,N]: each row meets one group's weight    → 2·M·K·N, out [M,N]
//   3-D a[G,M,K] × 3-D b[G,K,N]: G equal GEMMs                      → 2·G·M·K·N, out [G,M,N]
//   2-D a[M,K] × 2-D b[K,N], K split (weight gradients)             → 2·M·K·N, out [G,M,N]
//   3-D a[G,M,K] × 2-D b[K,N], N split                              → 2·M·K·N, out [M,N]
bool GroupedMm(std::string_view model, const OpArgs& args, OpCost& cost) {
  ShapeSpan a = args.Shape(0), b = args.Shape(1);
  SetDtype(args, cost);
  const int width = args.Width(0, cost.dtype);
  auto f = [](std::int64_t v) { return static_cast<double>(v); };
  double flops = 0, out = 0;
  if (a.size() == 2 && b.size() == 3 && a[1] == b[1]) {
    flops = 2 * f(a[0]) * f(a[1]) * f(b[2]);
    out = f(a[0]) * f(b[2]);
  } else if (a.size() == 3 && b.size() == 3 && a[0] == b[0] && a[2] == b[1]) {
    flops = 2 * f(a[0]) * f(a[1]) * f(a[2]) * f(b[2]);
    out = f(a[0]) * f(a[1]) * f(b[2]);
  } else if (a.size() == 2 && b.size() == 2 && a[1] == b[0]) {
    flops = 2 * f(a[0]) * f(a[1]) * f(b[1]);
    out = f(a[0]) * f(b[1]);  // per group; the group count is in offs, which has no size here
  } else if (a.size() == 3 && b.size() == 2 && a[2] == b[0]) {
    flops = 2 * f(a[1]) * f(a[2]) * f(b[1]);
    out = f(a[1]) * f(b[1]);
  } else {
    return false;
  }
  if (flops <= 0) return false;
  cost.model = model;
  cost.heavy = true;
  cost.flops = flops;
  cost.bytes = ArgBytes(args, 0, cost.dtype) + ArgBytes(args, 1, cost.dtype) + out * width;
  UnpackFp4(cost);
  return true;
}

}  // namespace

bool EstimateGemm(std::string_view name, const OpArgs& args, OpCost& cost) {
  if (name == "mm") return Mm("mm", args, 0, 1, 0, cost);
  // The agent's cuBLAS calls (ingest/native, kGemmOpName): shapes spelled as aten::mm's or,
  // batched, aten::bmm's.
  if (name == "cublas::gemm") {
    return args.Rank(0) == 3 ? Bmm("bmm", args, 0, 1, 0, cost) : Mm("mm", args, 0, 1, 0, cost);
  }
  if (name == "_scaled_mm" || name == "_scaled_mm_v2") {
    // FP8/MX GEMMs: the dtype (fp8, fp4) picks their own peak; scales are tiny.
    if (!Mm("scaled_mm", args, 0, 1, 0, cost)) return false;
    if (cost.dtype == Dtype::kUint8) cost.dtype = Dtype::kFp4;  // MX fp4 payloads viewed as bytes
    UnpackFp4(cost);
    return true;
  }
  if (name == "_grouped_mm") return GroupedMm("grouped_mm", args, cost);
  if (name == "_scaled_grouped_mm") return GroupedMm("scaled_grouped_mm", args, cost);
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
