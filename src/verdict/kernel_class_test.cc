#include "verdict/kernel_class.h"

#include <gtest/gtest.h>

namespace plasmient::verdict {
namespace {

// Names as the dev traces write them.
TEST(KernelClasses, FromTheKernelAndItsOp) {
  EXPECT_EQ(KernelClassOf("batched_transpose_32x32_half", "aten::miopen_convolution", false),
            KernelClass::kLayout);
  EXPECT_EQ(KernelClassOf("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>",
                          "aten::cudnn_convolution", false),
            KernelClass::kLayout);
  EXPECT_EQ(KernelClassOf("attn_fwd", "triton_attention", true), KernelClass::kAttention);
  EXPECT_EQ(KernelClassOf("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<>", "", true),
            KernelClass::kAttention);
  EXPECT_EQ(KernelClassOf("void split_embedding_codegen_forward_unweighted_kernel<c10::Half>",
                          "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function", false),
            KernelClass::kEmbedding);
  EXPECT_EQ(
      KernelClassOf("void cudnn::detail::dgrad_engine<float, 512>", "aten::cudnn_convolution_backward", true),
      KernelClass::kConv);
  EXPECT_EQ(KernelClassOf("igemm_fwd_gtcx3_nhwc_bf16_bx0", "aten::miopen_convolution", true),
            KernelClass::kConv);
  // A convolution op's bias add or norm is glue; its implicit-GEMM kernel is a convolution.
  EXPECT_EQ(KernelClassOf("void at::native::vectorized_elementwise_kernel<4, AddFunctor>",
                          "aten::convolution", false),
            KernelClass::kGlue);
  EXPECT_EQ(
      KernelClassOf("void implicit_convolve_sgemm<float, float, 1024>", "aten::cudnn_convolution", true),
      KernelClass::kConv);
  EXPECT_EQ(KernelClassOf("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64", "aten::mm", true),
            KernelClass::kGemm);
  EXPECT_EQ(KernelClassOf("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "aten::addmm", true),
            KernelClass::kGemm);
  // A kernel a GEMM model priced is a GEMM whatever its name.
  EXPECT_EQ(KernelClassOf("kernel_0x1", "aten::mm", true), KernelClass::kGemm);
  EXPECT_EQ(KernelClassOf("triton_poi_fused_add_cos_sin_0", "", false), KernelClass::kGlue);
  EXPECT_EQ(KernelClassOf("void at::native::reduce_kernel<512, 1>", "aten::mean", false), KernelClass::kGlue);
}

TEST(CopyKinds, FromTheActivityName) {
  EXPECT_EQ(CopyKindOf("Memcpy HtoD (Pageable -> Device)", false), CopyKind::kPageable);
  EXPECT_EQ(CopyKindOf("Memcpy HtoD (Pinned -> Device)", false), CopyKind::kPinned);
  EXPECT_EQ(CopyKindOf("Memcpy DtoD (Device -> Device)", false), CopyKind::kDevice);
  EXPECT_EQ(CopyKindOf("Memcpy PtoP (Device -> Device)", false), CopyKind::kPeer);
  EXPECT_EQ(CopyKindOf("Memset (Device)", true), CopyKind::kMemset);
}

}  // namespace
}  // namespace plasmient::verdict
