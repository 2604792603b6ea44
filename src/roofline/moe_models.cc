// Fused mixture-of-experts ops (vLLM / SGLang fused_experts, ROCm AITER): each token meets its
// top-k experts' gated MLP. From hidden[T, H], w1[E, N1, H'], w2[E, H, I'] and topk_ids[T, k]:
//   FLOPs = 2·T·k·H·(N1 + I), with I the intermediate size (w2's last dim, unpacked);
//   bytes = hidden in and out + the weights of the experts the tokens can reach (min(E, T·k)).
// Packed fp4 weights (two values per stored byte) show H' = H / 2: the packing factor is H / H'.
#include <algorithm>
#include <array>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

struct FusedExpertsOp {
  std::string_view name;
  int hidden, w1, w2, topk_ids;
};

constexpr std::array kFusedExpertsOps = {
    FusedExpertsOp{"vllm::outplace_fused_experts", 0, 1, 2, 4},
    FusedExpertsOp{"vllm::inplace_fused_experts", 0, 1, 2, 4},
    FusedExpertsOp{"vllm::fused_experts", 0, 1, 2, 4},
    FusedExpertsOp{"sglang::outplace_fused_experts", 0, 1, 2, 4},
    FusedExpertsOp{"sglang::inplace_fused_experts", 0, 1, 2, 4},
    FusedExpertsOp{"vllm::rocm_aiter_fused_moe", 0, 1, 2, 4},
    FusedExpertsOp{"vllm::rocm_aiter_asm_moe", 0, 1, 2, 4},
};

}  // namespace

bool EstimateMoe(std::string_view name, const OpArgs& args, OpCost& cost) {
  const FusedExpertsOp* op = FindByName(kFusedExpertsOps, name);
  if (op == nullptr) return false;
  ShapeSpan x = args.Shape(op->hidden), w1 = args.Shape(op->w1), w2 = args.Shape(op->w2);
  ShapeSpan ids = args.Shape(op->topk_ids);
  if (x.size() != 2 || w1.size() != 3 || w2.size() != 3 || ids.size() != 2 || ids[0] != x[0]) return false;
  const std::int64_t h = x[1];
  if (w1[0] != w2[0] || w1[2] <= 0 || w2[1] != h || h % w1[2] != 0) return false;
  const std::int64_t packing_ratio = h / w1[2];  // 1, or 2 for packed fp4: whole by construction
  const double packing = static_cast<double>(packing_ratio);
  auto f = [](std::int64_t v) { return static_cast<double>(v); };
  const double tokens = f(x[0]), top_k = f(ids[1]), experts = f(w1[0]);
  const double n1 = f(w1[1]), inter = f(w2[2]) * packing;
  SetDtype(args, cost);
  cost.flops = 2 * tokens * top_k * f(h) * (n1 + inter);
  const double weight_bytes = ArgBytes(args, op->w1, cost.dtype) + ArgBytes(args, op->w2, cost.dtype);
  const double reached = std::min(experts, tokens * top_k) / experts;
  cost.bytes = 2 * ArgBytes(args, op->hidden, cost.dtype) + reached * weight_bytes;
  if (packing == 2) cost.dtype = Dtype::kFp4;  // the experts' arithmetic runs on their own format
  cost.model = "fused_moe";
  cost.heavy = true;
  return cost.flops > 0;
}

}  // namespace plasmient::roofline::internal
