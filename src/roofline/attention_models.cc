// Attention FLOP models: 2·B·H·Lq·Lk·(D + Dv) forward, halved when causal with Lq = Lk;
// backward 2.5 × forward.
#include <array>

#include "roofline/op_args.h"

namespace plasmient::roofline::internal {
namespace {

enum class Layout : std::uint8_t { kBhld, kBlhd };                // q[B, H, L, D] or q[B, L, H, D]
enum class CausalArg : std::uint8_t { kNone, kBool, kMaskType };  // mask type 1/2 = causal

struct AttentionOp {
  std::string_view name;
  int query;  // k and v follow
  Layout layout;
  CausalArg causal_kind;
  int causal_arg;
  bool backward;
};

// clang-format off
constexpr std::array kAttentionOps = {
    AttentionOp{"scaled_dot_product_attention",                 0, Layout::kBhld, CausalArg::kBool,      5, false},
    AttentionOp{"_scaled_dot_product_flash_attention",          0, Layout::kBhld, CausalArg::kBool,      4, false},
    AttentionOp{"_scaled_dot_product_flash_attention_for_cpu",  0, Layout::kBhld, CausalArg::kBool,      4, false},
    AttentionOp{"_scaled_dot_product_efficient_attention",      0, Layout::kBhld, CausalArg::kBool,      6, false},
    AttentionOp{"_scaled_dot_product_cudnn_attention",          0, Layout::kBhld, CausalArg::kBool,      6, false},
    AttentionOp{"_scaled_dot_product_fused_attention_overrideable", 0, Layout::kBhld, CausalArg::kBool,  5, false},
    AttentionOp{"_flash_attention_forward",                     0, Layout::kBlhd, CausalArg::kBool,      8, false},
    AttentionOp{"_efficient_attention_forward",                 0, Layout::kBlhd, CausalArg::kMaskType,  9, false},
    AttentionOp{"flash_attn::_flash_attn_forward",              0, Layout::kBlhd, CausalArg::kBool,      5, false},
    AttentionOp{"_scaled_dot_product_flash_attention_backward", 1, Layout::kBhld, CausalArg::kBool,     11, true},
    AttentionOp{"_scaled_dot_product_flash_attention_for_cpu_backward", 1, Layout::kBhld, CausalArg::kBool, 7, true},
    AttentionOp{"_scaled_dot_product_efficient_attention_backward", 1, Layout::kBhld, CausalArg::kBool, 11, true},
    AttentionOp{"_scaled_dot_product_cudnn_attention_backward", 1, Layout::kBhld, CausalArg::kBool,     14, true},
    AttentionOp{"_flash_attention_backward",                    1, Layout::kBlhd, CausalArg::kBool,     11, true},
    AttentionOp{"_efficient_attention_backward",                1, Layout::kBlhd, CausalArg::kMaskType, 14, true},
    AttentionOp{"flash_attn::_flash_attn_backward",             1, Layout::kBlhd, CausalArg::kBool,     11, true},
};
// clang-format on

bool IsCausal(const AttentionOp& op, const OpArgs& args) {
  if (!args.has_concrete) return false;
  std::string_view v = args.Concrete(op.causal_arg);
  switch (op.causal_kind) {
    case CausalArg::kNone:
      return false;
    case CausalArg::kBool:
      return ParseBool(v).value_or(false);
    case CausalArg::kMaskType: {
      auto t = ParseInt(v);
      return t && (*t == 1 || *t == 2);
    }
  }
  return false;
}

struct Dims {
  double b, h, l, d;
};

// [B, H, L, D] or [B, L, H, D]; a 3-D BHLD tensor is [B, L, D] with one head. Packed
// variable-length (3-D BLHD) inputs have no model: per-sequence lengths are not in the trace.
bool Split(ShapeSpan s, Layout layout, Dims& out) {
  if (s.size() == 4) {
    auto f = [&](int i) { return static_cast<double>(s[i]); };
    out = layout == Layout::kBhld ? Dims{f(0), f(1), f(2), f(3)} : Dims{f(0), f(2), f(1), f(3)};
    return true;
  }
  if (s.size() == 3 && layout == Layout::kBhld) {
    out = Dims{static_cast<double>(s[0]), 1, static_cast<double>(s[1]), static_cast<double>(s[2])};
    return true;
  }
  return false;
}

}  // namespace

bool EstimateAttention(std::string_view name, const OpArgs& args, OpCost& cost) {
  const AttentionOp* op = FindByName(kAttentionOps, name);
  if (op == nullptr) return false;
  Dims q, k, v;
  if (!Split(args.Shape(op->query), op->layout, q) || !Split(args.Shape(op->query + 1), op->layout, k) ||
      !Split(args.Shape(op->query + 2), op->layout, v)) {
    return false;
  }
  if (q.b != k.b || k.l != v.l || q.d != k.d) return false;
  SetDtype(args, cost);
  double flops = 2.0 * q.b * q.h * q.l * k.l * (q.d + v.d);
  if (IsCausal(*op, args) && q.l == k.l) flops *= 0.5;
  const double width = args.Width(op->query, cost.dtype);
  const double qkv_bytes = (q.b * q.h * q.l * q.d + k.b * k.h * k.l * k.d + v.b * v.h * v.l * v.d) * width;
  const double out_bytes = q.b * q.h * q.l * v.d * width;
  cost.heavy = true;
  cost.backward = op->backward;
  if (op->backward) {
    cost.flops = 2.5 * flops;
    cost.bytes = 2 * qkv_bytes + 2 * out_bytes;  // reads grad_out, q, k, v, out; writes dq, dk, dv
    cost.model = "sdpa_bwd";
  } else {
    cost.flops = flops;
    cost.bytes = qkv_bytes + out_bytes;
    cost.model = "sdpa_fwd";
  }
  return true;
}

}  // namespace plasmient::roofline::internal
