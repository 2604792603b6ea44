// What kind of work a kernel does (docs/fixes.md, "Kernel classes"): the fix for a kernel's lost
// time depends on it, and a culprit is listed only under the fix for its own class (a fused
// attention kernel never under "GEMM shapes", a layout transpose never under "raise GEMM
// efficiency").
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace plasmient::verdict {

enum class KernelClass : std::uint8_t {
  kGemm,       // matrix multiplies (cuBLAS, CUTLASS, rocBLAS/Tensile, hipBLASLt, Triton mm)
  kConv,       // convolutions (cuDNN, MIOpen, implicit-GEMM convolutions)
  kAttention,  // fused attention (FlashAttention, SDPA, FMHA, paged/decode attention)
  kEmbedding,  // embedding lookups and their gradients (TorchRec/FBGEMM TBE, embedding_bag)
  kLayout,     // layout transposes and permutes (NCHW↔NHWC, batched_transpose): no arithmetic
  kGlue,       // elementwise, norms, reductions, softmax, casts and copies between the heavy ops
  kCount,
};
inline constexpr std::size_t kKernelClassCount = static_cast<std::size_t>(KernelClass::kCount);
std::string_view KernelClassName(KernelClass c);  // "gemm", "conv", ... (the JSON's words)

// The class of a kernel from its name and the name of the op that launched it ("" when none).
// `heavy` says a GEMM, convolution or attention model priced it; such a kernel that no name
// places elsewhere is a GEMM.
KernelClass KernelClassOf(std::string_view kernel, std::string_view op, bool heavy);

// What a copy moved, from its activity name ("Memcpy HtoD (Pageable -> Device)", "Memset
// (Device)", "Memcpy PtoP"): the data-movement fix follows the kind that takes the time.
enum class CopyKind : std::uint8_t {
  kPageable,  // to or from pageable host memory: synchronous, staged
  kPinned,    // between pinned host memory and the device
  kDevice,    // device to device
  kPeer,      // between devices (peer to peer)
  kMemset,
  kCount,
};
inline constexpr std::size_t kCopyKindCount = static_cast<std::size_t>(CopyKind::kCount);
std::string_view CopyKindName(CopyKind c);  // "pageable", "pinned", "device_to_device", ...
CopyKind CopyKindOf(std::string_view activity_name, bool memset);

// Whether a kernel is already the output of a fusion: a compiler's fused kernel (Inductor's
// triton_poi_fused_*/triton_red_fused_*/triton_per_fused_*, XLA's fusion kernels, nvFuser's
// kernels) or a hand-fused one (fused_*, *Fused*). Fusing such glue further is not the first fix.
bool IsFusedKernelName(std::string_view kernel);

// Lost seconds by kernel class.
using ClassSeconds = std::array<double, kKernelClassCount>;

}  // namespace plasmient::verdict
