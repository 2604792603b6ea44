// Attention FLOP models: 2·B·H·Lq·Lk·(D + Dv) forward, halved when causal with Lq = Lk;
// backward 2.5 × forward.
#include <algorithm>
#include <array>
#include <optional>

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

// Variable-length (packed) attention: q[Tq, H, D], k/v[Tk, Hk, D], cumulative sequence
// offsets cu_seqlens[B + 1]. The per-sequence lengths are values, not shapes, so FLOPs use
// equal lengths Tq/B and Tk/B: a lower bound (Σ Lq·Lk ≥ Tq·Tk/B for matched lengths).
struct VarlenOp {
  std::string_view name;
  int query, cu_seqlens_q, causal_arg;
  bool backward;
};

// clang-format off
constexpr std::array kVarlenOps = {
    VarlenOp{"flash_attn::_flash_attn_varlen_forward",  0, 3,  9, false},
    VarlenOp{"flash_attn::_flash_attn_varlen_backward", 1, 9, 15, true},
    VarlenOp{"_flash_attention_forward",                0, 3,  8, false},
    VarlenOp{"_flash_attention_backward",               1, 6, 11, true},
};
// clang-format on

bool EstimateVarlen(std::string_view name, const OpArgs& args, OpCost& cost) {
  const VarlenOp* op = FindByName(kVarlenOps, name);
  if (op == nullptr) return false;
  ShapeSpan q = args.Shape(op->query), k = args.Shape(op->query + 1), v = args.Shape(op->query + 2);
  ShapeSpan cu = args.Shape(op->cu_seqlens_q);
  if (q.size() != 3 || k.size() != 3 || v.size() != 3 || cu.size() != 1 || cu[0] < 2) return false;
  if (q[2] != k[2] || k[0] != v[0]) return false;
  auto f = [](std::int64_t x) { return static_cast<double>(x); };
  const double batch = f(cu[0] - 1), heads = f(q[1]);
  double flops = 2.0 * heads * f(q[0]) * f(k[0]) / batch * f(q[2] + v[2]);
  bool causal = false;
  if (op->causal_arg >= 0 && args.has_concrete)
    causal = ParseBool(args.Concrete(op->causal_arg)).value_or(false);
  if (causal && q[0] == k[0]) flops *= 0.5;
  SetDtype(args, cost);
  const double width = args.Width(op->query, cost.dtype);
  const double qkv = (f(Elements(q)) + f(Elements(k)) + f(Elements(v))) * width;
  const double out = f(q[0]) * heads * f(v[2]) * width;
  cost.heavy = true;
  cost.backward = op->backward;
  cost.flops = op->backward ? 2.5 * flops : flops;
  cost.bytes = op->backward ? 2 * qkv + 2 * out : qkv + out;
  cost.model = op->backward ? "varlen_attention_bwd" : "varlen_attention_fwd";
  return true;
}

// Paged decode attention (vLLM paged_attention_v1/v2): query[B, H, D] against a KV cache
// [blocks, Hkv, …, block_size, …] through block_tables[B, max_blocks]. The context lengths are
// values (seq_lens), so neither the FLOPs nor the KV bytes are known exactly: the byte model
// takes every sequence at max_seq_len (Concrete Inputs), else at the block table's reach —
// an upper bound on the KV-cache read that dominates decode. No FLOP model.
struct PagedOp {
  std::string_view name;
  int query, key_cache, block_tables, block_size_arg, max_seq_len_arg;
};

constexpr std::array kPagedOps = {
    PagedOp{"_C::paged_attention_v1", 1, 2, 6, 8, 9},
    PagedOp{"_C::paged_attention_v2", 4, 5, 9, 11, 12},
};

bool EstimatePaged(std::string_view name, const OpArgs& args, OpCost& cost) {
  const PagedOp* op = FindByName(kPagedOps, name);
  if (op == nullptr) return false;
  ShapeSpan q = args.Shape(op->query), cache = args.Shape(op->key_cache),
            tables = args.Shape(op->block_tables);
  if (q.size() != 3 || cache.size() < 3 || tables.size() != 2 || tables[0] != q[0]) return false;
  const double blocks_elems = static_cast<double>(Elements(cache.subspan(1)));  // one block: Hkv·D·block_size
  std::optional<std::int64_t> block_size, max_len;
  if (args.has_concrete) {
    block_size = ParseInt(args.Concrete(op->block_size_arg));
    max_len = ParseInt(args.Concrete(op->max_seq_len_arg));
  }
  double blocks_per_seq = static_cast<double>(tables[1]);
  if (block_size && max_len && *block_size > 0) {
    const std::int64_t blocks_for_max_len = (*max_len + *block_size - 1) / *block_size;  // ceiling
    blocks_per_seq = std::min(blocks_per_seq, static_cast<double>(blocks_for_max_len));
  }
  SetDtype(args, cost);
  const double q_bytes = static_cast<double>(Elements(q)) * args.Width(op->query, cost.dtype);
  const double kv_bytes =
      2 * static_cast<double>(q[0]) * blocks_per_seq * blocks_elems * args.Width(op->key_cache, cost.dtype);
  cost.flops = -1;
  cost.bytes = 2 * q_bytes + kv_bytes;
  cost.model = "paged_attention_bytes";
  cost.heavy = true;
  return true;
}

}  // namespace

bool EstimateAttention(std::string_view name, const OpArgs& args, OpCost& cost) {
  if (EstimateVarlen(name, args, cost) || EstimatePaged(name, args, cost)) return true;
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
