#include "roofline/kernel_name.h"

#include <array>
#include <cctype>
#include <string>

#include "base/text.h"

namespace plasmient::roofline {
namespace {

// Kernel names can be long templates; a fixed buffer is enough to classify them.
class Lower {
 public:
  explicit Lower(std::string_view s) {
    size_ = s.size() < buf_.size() ? s.size() : buf_.size();
    for (std::size_t i = 0; i < size_; ++i) buf_[i] = AsciiLower(s[i]);
  }
  std::string_view view() const { return {buf_.data(), size_}; }
  bool Has(std::string_view needle) const { return view().find(needle) != std::string_view::npos; }

 private:
  std::array<char, 1024> buf_{};
  std::size_t size_ = 0;
};

// "conv" as in convolution, not as in convert/conversion.
bool HasConv(std::string_view s) {
  for (std::size_t p = s.find("conv"); p != std::string_view::npos; p = s.find("conv", p + 1)) {
    std::string_view rest = s.substr(p + 4);
    if (!rest.starts_with("ert") && !rest.starts_with("ers")) return true;
  }
  return false;
}

}  // namespace

bool IsHeavyKernelName(std::string_view kernel_name) {
  Lower l(kernel_name);
  constexpr std::string_view kTokens[] = {
      "gemm",  "gemv",  "cutlass",   "xmma",     "wgmma",    "cublas",        "nvjet",    "kernel2<",
      "flash", "fmha",  "attention", "attn_fwd", "attn_bwd", "implicit_gemm", "winograd", "fprop",
      "dgrad", "wgrad", "scudnn",    "cijk_",    "igemm",    "triton_tem_",   "mfma",
  };
  for (std::string_view t : kTokens) {
    if (l.Has(t)) return true;
  }
  return HasConv(l.view());
}

Dtype DtypeFromKernelName(std::string_view kernel_name) {
  Lower l(kernel_name);
  if (l.Has("e4m3") || l.Has("e5m2") || l.Has("fp8") || l.Has("_f8")) return Dtype::kFp8;
  if (l.Has("bf16")) return Dtype::kBf16;
  if (l.Has("tf32") || l.Has("xf32")) return Dtype::kTf32;
  if (l.Has("fp16") || l.Has("f16") || l.Has("hgemm") || l.Has("h884") || l.Has("h1688") || l.Has("h16816") ||
      l.Has("half")) {
    return Dtype::kFp16;
  }
  if (l.Has("imma") || l.Has("int8") || l.Has("i8i8") || l.Has("s8s8")) return Dtype::kInt8;
  if (l.Has("dgemm") || l.Has("fp64") || l.Has("f64") || l.Has("double")) return Dtype::kFp64;
  if (l.Has("sgemm") || l.Has("fp32") || l.Has("f32")) return Dtype::kFp32;
  return Dtype::kUnknown;
}

bool IsTf32KernelName(std::string_view kernel_name) {
  Lower l(kernel_name);
  if (l.Has("tf32") || l.Has("xf32")) return true;
  const bool tensor_op = l.Has("1688") || l.Has("16816") || l.Has("tensorop") || l.Has("wgmma");
  if (!tensor_op) return false;
  Dtype d = DtypeFromKernelName(kernel_name);
  return d == Dtype::kUnknown || d == Dtype::kFp32;
}

}  // namespace plasmient::roofline
