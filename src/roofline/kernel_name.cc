#include "roofline/kernel_name.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
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

namespace {

constexpr std::string_view kHeavyTokens[] = {
    "gemm",  "gemv",  "cutlass",   "xmma",     "wgmma",    "cublas",        "nvjet",    "kernel2<",
    "flash", "fmha",  "attention", "attn_fwd", "attn_bwd", "implicit_gemm", "winograd", "fprop",
    "dgrad", "wgrad", "scudnn",    "cijk_",    "igemm",    "triton_tem_",   "mfma",
};
static_assert(std::size(kHeavyTokens) <= 32);
static_assert(std::ranges::all_of(kHeavyTokens, [](std::string_view t) { return t.size() >= 2; }));

// Bit k set at byte b where token k starts with b.
constexpr std::array<std::uint32_t, 256> kHeavyTokensByFirstByte = [] {
  std::array<std::uint32_t, 256> by_first{};
  for (std::size_t k = 0; k < std::size(kHeavyTokens); ++k) {
    by_first[static_cast<unsigned char>(kHeavyTokens[k][0])] |= std::uint32_t{1} << k;
  }
  return by_first;
}();

}  // namespace

bool IsHeavyKernelName(std::string_view kernel_name) {
  Lower l(kernel_name);
  // One pass, trying at each byte only the tokens that start with it: a search per token went
  // back over the name twenty-three times, stopping at every 'c', 'g' or 'm' of a long template.
  const std::string_view name = l.view();
  for (std::size_t i = 0; i < name.size(); ++i) {
    for (std::uint32_t bits = kHeavyTokensByFirstByte[static_cast<unsigned char>(name[i])]; bits != 0;
         bits &= bits - 1) {
      const std::string_view token = kHeavyTokens[std::countr_zero(bits)];  // two bytes or more
      if (name.size() - i >= token.size() && name[i + 1] == token[1] &&
          name.substr(i, token.size()) == token) {
        return true;
      }
    }
  }
  return HasConv(name);
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
