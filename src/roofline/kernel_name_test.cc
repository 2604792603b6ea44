#include "roofline/kernel_name.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>

namespace plasmient::roofline {
namespace {

TEST(KernelName, HeavyClasses) {
  EXPECT_TRUE(IsHeavyKernelName("ampere_sgemm_128x64_tn"));
  EXPECT_TRUE(
      IsHeavyKernelName("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1"));
  EXPECT_TRUE(IsHeavyKernelName(
      "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(Params)"));
  EXPECT_TRUE(IsHeavyKernelName("nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NTN"));
  EXPECT_TRUE(IsHeavyKernelName(
      "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128>>(Flash_fwd_params)"));
  EXPECT_TRUE(IsHeavyKernelName("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false>"));
  EXPECT_TRUE(IsHeavyKernelName("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw"));
  EXPECT_TRUE(IsHeavyKernelName("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1"));
  EXPECT_TRUE(IsHeavyKernelName("miopenSp3AsmConv_v21_1_3_gfx9_fp32_stride1"));
  EXPECT_TRUE(IsHeavyKernelName("fmha_cutlassF_bf16_aligned_64x128_rf_sm80"));
  EXPECT_TRUE(IsHeavyKernelName("volta_scudnn_128x128_stridedB_splitK_small_nn_v1"));
  EXPECT_TRUE(IsHeavyKernelName("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>"));
}

TEST(KernelName, NotHeavy) {
  EXPECT_FALSE(IsHeavyKernelName(
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"));
  EXPECT_FALSE(IsHeavyKernelName("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>"));
  EXPECT_FALSE(IsHeavyKernelName("void at::native::unrolled_elementwise_kernel<at::native::ConvertFunctor>"));
  EXPECT_FALSE(
      IsHeavyKernelName("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_FALSE(IsHeavyKernelName("triton_poi_fused_add_cos_sin_0"));
}

TEST(KernelName, Dtypes) {
  EXPECT_EQ(DtypeFromKernelName("ampere_sgemm_128x64_tn"), Dtype::kFp32);
  EXPECT_EQ(DtypeFromKernelName("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"), Dtype::kBf16);
  EXPECT_EQ(DtypeFromKernelName("volta_h884gemm_64x64_ldg8_nn"), Dtype::kFp16);
  EXPECT_EQ(DtypeFromKernelName("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn"), Dtype::kFp8);
  EXPECT_EQ(DtypeFromKernelName("ampere_dgemm_64x64_tn"), Dtype::kFp64);
  EXPECT_EQ(DtypeFromKernelName("void at::native::reduce_kernel<512, 1>"), Dtype::kUnknown);
}

TEST(KernelName, Tf32Evidence) {
  EXPECT_TRUE(IsTf32KernelName("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4"));
  EXPECT_TRUE(IsTf32KernelName("sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n"));
  EXPECT_FALSE(IsTf32KernelName("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8"));
  EXPECT_FALSE(IsTf32KernelName("ampere_sgemm_128x64_tn"));
  EXPECT_FALSE(IsTf32KernelName("volta_h884gemm_64x64_ldg8_nn"));
}

// Against a search per token over the lower-cased name, on names built from the tokens' own
// letters in both cases with tokens planted at random (names holding "conv" are left to the
// convolution rule and skipped).
TEST(KernelName, HeavyTokensAnywhereInAnyCase) {
  constexpr std::string_view kTokens[] = {
      "gemm",  "gemv",  "cutlass",   "xmma",     "wgmma",    "cublas",        "nvjet",    "kernel2<",
      "flash", "fmha",  "attention", "attn_fwd", "attn_bwd", "implicit_gemm", "winograd", "fprop",
      "dgrad", "wgrad", "scudnn",    "cijk_",    "igemm",    "triton_tem_",   "mfma",
  };
  const std::string alphabet = "gemvcutlasxwbnjkr2<fhioddpsij_GEMCUTLASXWB ";
  std::mt19937 rng(11);
  int heavy = 0, checked = 0;
  for (int trial = 0; trial < 30000; ++trial) {
    std::string name(1 + rng() % 60, ' ');
    for (char& c : name) c = alphabet[rng() % alphabet.size()];
    if (trial % 4 == 0) {
      const std::string_view t = kTokens[rng() % std::size(kTokens)];
      name.insert(rng() % (name.size() + 1), std::string(t));
    }
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("conv") != std::string::npos) continue;
    const bool want =
        std::ranges::any_of(kTokens, [&](std::string_view t) { return lower.find(t) != std::string::npos; });
    heavy += want ? 1 : 0;
    ++checked;
    ASSERT_EQ(IsHeavyKernelName(name), want) << name;
  }
  EXPECT_GT(heavy, 5000);
  EXPECT_GT(checked, 25000);
}

}  // namespace
}  // namespace plasmient::roofline
