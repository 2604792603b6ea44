#include "verdict/kernel_class.h"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "base/result.h"
#include "base/text.h"

namespace plasmient::verdict {
namespace {

constexpr std::array<std::string_view, kKernelClassCount> kKernelClassNames = {
    "gemm", "conv", "attention", "embedding", "layout", "glue"};

bool HasAny(std::string_view s, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return s.find(p) != s.npos; });
}

}  // namespace

std::string_view KernelClassName(KernelClass c) {
  const auto i = static_cast<std::size_t>(c);
  PLASMIENT_CHECK(i < kKernelClassCount);
  return kKernelClassNames[i];
}

KernelClass KernelClassOf(std::string_view kernel_name, std::string_view op_name, bool heavy) {
  const std::string k = AsciiLower(kernel_name);
  const std::string op = AsciiLower(op_name);
  // Layout first: a cuDNN convolution's nchwToNhwc and MIOpen's batched_transpose run under the
  // convolution op but do no arithmetic.
  if (HasAny(k, {"transpose", "nchwtonhwc", "nhwctonchw", "permute", "nchw_to_nhwc", "nhwc_to_nchw"}) &&
      !HasAny(k, {"gemm", "conv", "fprop", "dgrad", "wgrad"}))
    return KernelClass::kLayout;
  if (HasAny(k, {"flash", "fmha", "attn", "attention", "sdpa", "paged_attention", "mha_", "_mha"}) ||
      HasAny(op, {"scaled_dot_product", "flash_attention", "efficient_attention", "attention"}))
    return KernelClass::kAttention;
  if (HasAny(k, {"embedding", "embeddingbag", "embedding_bag"}) || HasAny(op, {"embedding"}))
    return KernelClass::kEmbedding;
  if (HasAny(k, {"conv", "fprop", "dgrad", "wgrad", "igemm_fwd", "igemm_bwd", "igemm_wrw", "winograd"}) ||
      HasAny(op, {"conv"}))
    return heavy || HasAny(k, {"conv", "fprop", "dgrad", "wgrad", "igemm", "winograd"}) ? KernelClass::kConv
                                                                                        : KernelClass::kGlue;
  if (HasAny(k,
             {"gemm", "cijk_", "cutlass", "xmma", "matmul", "gemv", "_mm_", "triton_tem_fused_mm", "bmm"}) ||
      heavy)
    return KernelClass::kGemm;
  return KernelClass::kGlue;
}

std::string_view CopyKindName(CopyKind c) {
  static constexpr std::array<std::string_view, kCopyKindCount> kNames = {
      "pageable", "pinned", "device_to_device", "peer", "memset"};
  const auto i = static_cast<std::size_t>(c);
  PLASMIENT_CHECK(i < kCopyKindCount);
  return kNames[i];
}

CopyKind CopyKindOf(std::string_view name, bool memset) {
  if (memset || name.find("Memset") != name.npos) return CopyKind::kMemset;
  if (name.find("Pageable") != name.npos) return CopyKind::kPageable;
  if (name.find("PtoP") != name.npos || name.find("Peer") != name.npos) return CopyKind::kPeer;
  if (name.find("DtoD") != name.npos || name.find("Device -> Device") != name.npos) return CopyKind::kDevice;
  return CopyKind::kPinned;  // HtoD/DtoH between pinned (or unnamed) host memory and the device
}

bool IsFusedKernelName(std::string_view kernel) {
  for (std::string_view mark : {"fused", "Fused", "FUSED", "fusion", "nvfuser", "CudaCodeGen"}) {
    if (kernel.find(mark) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace plasmient::verdict
