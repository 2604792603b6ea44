// Every expected value below is computed by hand in the comment beside it.
#include "roofline/op_cost.h"

#include <string>

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

constexpr const char* kBf16x3 = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])";

// The agent's cuBLAS calls, as ingest/native spells them: 2·M·N·K (times the batch).
TEST(OpCost, AgentGemmCallsUseTheMmAndBmmModels) {
  OpCost c =
      EstimateOp("cublas::gemm", "[[4096,1024],[1024,512]]", R"(["c10::BFloat16","c10::BFloat16"])", "");
  ASSERT_TRUE(c.modeled());
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4096 * 1024 * 512);
  EXPECT_EQ(c.dtype, Dtype::kBf16);
  OpCost b = EstimateOp("cublas::gemm", "[[3,64,32],[3,32,16]]", R"(["c10::BFloat16","c10::BFloat16"])", "");
  ASSERT_TRUE(b.modeled());
  EXPECT_DOUBLE_EQ(b.flops, 2.0 * 3 * 64 * 32 * 16);
}

TEST(GemmModel, MmBf16) {
  OpCost c = EstimateOp("aten::mm", "[[8,512],[512,1024]]", R"(["c10::BFloat16","c10::BFloat16"])", "");
  EXPECT_EQ(c.model, "mm");
  EXPECT_TRUE(c.heavy);
  EXPECT_EQ(c.dtype, Dtype::kBf16);
  EXPECT_DOUBLE_EQ(c.flops, 8388608);         // 2·8·1024·512
  EXPECT_DOUBLE_EQ(c.bytes, 1073152);         // (8·512 + 512·1024 + 8·1024)·2
  EXPECT_DOUBLE_EQ(c.weight_bytes, 1048576);  // the second operand, 512·1024·2
}

TEST(GemmModel, MmWithOutArgumentCountsOutputOnce) {
  OpCost c = EstimateOp("aten::mm", "[[32768, 2048], [2048, 2048], [32768, 2048]]", kBf16x3, R"(["","",""])");
  EXPECT_DOUBLE_EQ(c.flops, 274877906944);  // 2·32768·2048·2048
  EXPECT_DOUBLE_EQ(c.bytes, 276824064);     // (32768·2048·2 + 2048·2048)·2
}

TEST(GemmModel, AddmmCountsBiasBytesNotFlops) {
  OpCost c = EstimateOp("aten::addmm", "[[1024], [8944, 1024], [1024, 1024], [], []]",
                        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
                        R"(["","","","1","1"])");
  EXPECT_EQ(c.model, "addmm");
  EXPECT_DOUBLE_EQ(c.flops, 18756927488);     // 2·8944·1024·1024
  EXPECT_DOUBLE_EQ(c.bytes, 38733824);        // (1024 + 8944·1024 + 1024·1024 + 8944·1024)·2
  EXPECT_DOUBLE_EQ(c.weight_bytes, 2099200);  // bias and mat2: (1024 + 1024·1024)·2
}

TEST(GemmModel, LinearWithThreeDimInput) {
  OpCost c = EstimateOp("aten::linear", "[[16, 559, 1024], [1024, 1024], [1024]]", kBf16x3, R"(["","",""])");
  EXPECT_EQ(c.model, "linear");
  EXPECT_DOUBLE_EQ(c.flops, 18756927488);  // M = 16·559 = 8944: 2·8944·1024·1024
  EXPECT_DOUBLE_EQ(c.bytes, 38733824);     // x + W + out + bias, 2 bytes each
}

TEST(GemmModel, WeightBytesOfLinearAndNoneOfBmm) {
  OpCost linear =
      EstimateOp("aten::linear", "[[16, 559, 1024], [1024, 1024], [1024]]", kBf16x3, R"(["","",""])");
  EXPECT_DOUBLE_EQ(linear.weight_bytes, 2099200);  // weight and bias: (1024·1024 + 1024)·2
  OpCost bmm = EstimateOp("aten::bmm", "[[4, 8, 16], [4, 16, 32]]", kBf16x3, "");
  EXPECT_GT(bmm.bytes, 0);
  EXPECT_DOUBLE_EQ(bmm.weight_bytes, 0);  // both operands carry the batch
}

TEST(GemmModel, Bmm) {
  OpCost c = EstimateOp("aten::bmm", "[[2048, 160, 45], [2048, 45, 20]]", R"(["float","float"])", "");
  EXPECT_DOUBLE_EQ(c.flops, 589824000);  // 2·2048·160·20·45
  EXPECT_DOUBLE_EQ(c.bytes, 92569600);   // (2048·160·45 + 2048·45·20 + 2048·160·20)·4
}

TEST(GemmModel, BaddbmmUsesSecondAndThirdArguments) {
  OpCost c = EstimateOp("aten::baddbmm", "[[4,8,16],[4,8,32],[4,32,16],[],[]]",
                        R"(["float","float","float","Scalar","Scalar"])", "");
  EXPECT_DOUBLE_EQ(c.flops, 32768);  // 2·4·8·16·32
  EXPECT_DOUBLE_EQ(c.bytes, 16384);  // (self 512 + 1024 + 2048 + out 512)·4
}

TEST(GemmModel, MatmulBroadcastsBatchDims) {
  OpCost c = EstimateOp("aten::matmul", "[[4,1,32,64],[3,64,16]]", R"(["float","float"])", "");
  EXPECT_DOUBLE_EQ(c.flops, 786432);  // batch 4·3 = 12: 2·12·32·16·64
}

TEST(GemmModel, MatmulOneDimOperands) {
  EXPECT_DOUBLE_EQ(EstimateOp("aten::matmul", "[[64],[64,16]]", R"(["float","float"])", "").flops,
                   2048);  // 2·64·16
  EXPECT_DOUBLE_EQ(EstimateOp("aten::matmul", "[[32,64],[64]]", R"(["float","float"])", "").flops,
                   4096);  // 2·32·64
  EXPECT_DOUBLE_EQ(EstimateOp("aten::matmul", "[[1,32,1],[1,1,559]]", R"(["float","float"])", "").flops,
                   35776);  // 2·32·559·1
}

TEST(GemmModel, ScaledMmFp8AndPackedFp4) {
  OpCost fp8 = EstimateOp("aten::_scaled_mm", "[[128, 256], [256, 512], [], []]",
                          R"(["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float"])", "");
  EXPECT_EQ(fp8.dtype, Dtype::kFp8);
  EXPECT_DOUBLE_EQ(fp8.flops, 33554432);  // 2·128·512·256
  // fp4x2 stores two values per element: K = 2·128.
  OpCost fp4 = EstimateOp("aten::_scaled_mm", "[[128, 128], [128, 512], [128, 8], [8, 512]]",
                          R"(["c10::Float4_e2m1fn_x2","c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu",)"
                          R"("c10::Float8_e8m0fnu"])",
                          "");
  EXPECT_EQ(fp4.dtype, Dtype::kFp4);
  EXPECT_DOUBLE_EQ(fp4.flops, 33554432);
}

TEST(GemmModel, GroupedMmAllLayouts) {
  // 2-D tokens × 3-D experts: 4096 routed rows over 8 experts, K 1024, N 2048.
  OpCost a = EstimateOp("aten::_grouped_mm", "[[4096, 1024], [8, 1024, 2048], [8]]",
                        R"(["c10::BFloat16","c10::BFloat16","int"])", "");
  EXPECT_EQ(a.model, "grouped_mm");
  EXPECT_TRUE(a.heavy);
  EXPECT_DOUBLE_EQ(a.flops, 17179869184);  // 2·4096·1024·2048
  EXPECT_DOUBLE_EQ(a.bytes, (4096.0 * 1024 + 8 * 1024 * 2048 + 4096 * 2048) * 2);
  OpCost b = EstimateOp("aten::_grouped_mm", "[[8, 512, 1024], [8, 1024, 2048]]",
                        R"(["c10::BFloat16","c10::BFloat16"])", "");
  EXPECT_DOUBLE_EQ(b.flops, 17179869184);  // 2·8·512·1024·2048
  OpCost w = EstimateOp("aten::_grouped_mm", "[[1024, 4096], [4096, 2048], [8]]",
                        R"(["c10::BFloat16","c10::BFloat16","int"])", "");
  EXPECT_DOUBLE_EQ(w.flops, 17179869184);  // weight gradient, K split: 2·1024·4096·2048
  OpCost bad = EstimateOp("aten::_grouped_mm", "[[4096, 1000], [8, 1024, 2048]]",
                          R"(["c10::BFloat16","c10::BFloat16"])", "");
  EXPECT_FALSE(bad.modeled());
}

TEST(MoeModel, FusedExpertsFromTokensTopKAndExpertShapes) {
  // 64 tokens, H 2880, 32 experts, w1 [32, 5760, 2880] (gate+up), w2 [32, 2880, 2880], top-4.
  OpCost c = EstimateOp("vllm::outplace_fused_experts",
                        "[[64, 2880], [32, 5760, 2880], [32, 2880, 2880], [64, 4], [64, 4]]",
                        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","float","int"])", "");
  EXPECT_EQ(c.model, "fused_moe");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 64 * 4 * 2880 * (5760 + 2880));
  // 256 routed rows reach all 32 experts: every weight read once, hidden in and out.
  EXPECT_DOUBLE_EQ(c.bytes, 2 * 64.0 * 2880 * 2 + (32.0 * 5760 * 2880 + 32.0 * 2880 * 2880) * 2);
  // Packed fp4 experts (uint8, two values a byte): H' = 1440, intermediate 2·1440.
  OpCost fp4 = EstimateOp("vllm::outplace_fused_experts",
                          "[[2, 2880], [32, 5760, 1440], [32, 2880, 1440], [2, 4], [2, 4]]",
                          R"(["c10::BFloat16","unsigned char","unsigned char","float","int"])", "");
  EXPECT_EQ(fp4.dtype, Dtype::kFp4);
  EXPECT_DOUBLE_EQ(fp4.flops, 2.0 * 2 * 4 * 2880 * (5760 + 2880));
  // 8 routed rows reach at most 8 of the 32 experts.
  EXPECT_DOUBLE_EQ(fp4.bytes, 2 * 2.0 * 2880 * 2 + 8.0 / 32 * (32.0 * 5760 * 1440 + 32.0 * 2880 * 1440));
  OpCost mismatch = EstimateOp("vllm::outplace_fused_experts",
                               "[[64, 2880], [32, 5760, 2880], [32, 4096, 2880], [64, 4], [64, 4]]",
                               R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","float","int"])", "");
  EXPECT_FALSE(mismatch.modeled());
}

TEST(GemmModel, MismatchedInnerDimensionHasNoModel) {
  OpCost c = EstimateOp("aten::mm", "[[8,512],[256,1024]]", R"(["float","float"])", "");
  EXPECT_FALSE(c.modeled());
  EXPECT_EQ(c.flops, -1);
}

TEST(ConvModel, StrideAndPaddingFromConcreteInputs) {
  // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
  OpCost c = EstimateOp(
      "aten::convolution", "[[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])",
      R"(["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1"])");
  EXPECT_EQ(c.model, "conv");
  EXPECT_FALSE(c.conv_assumed_geometry);
  EXPECT_DOUBLE_EQ(c.flops, 1156055040);  // out (14+2-3)/2+1 = 7: 2·10·512·256·9·49
  EXPECT_DOUBLE_EQ(c.bytes, 3864576);     // (10·256·196 + 512·256·9 + 10·512·49)·2
}

TEST(ConvModel, MiopenArgumentOrderPaddingBeforeStride) {
  OpCost c = EstimateOp(
      "aten::miopen_convolution", "[[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","Scalar","Scalar"])",
      R"(["","","","[1, 1]","[2, 2]","[1, 1]","1","False","False"])");
  EXPECT_DOUBLE_EQ(c.flops, 1156055040);  // same geometry as above
}

TEST(ConvModel, GroupsAndDilation) {
  // conv2d(input, weight, bias, stride, padding, dilation, groups): groups 4 → w[1] = 32/4 = 8.
  OpCost c = EstimateOp("aten::conv2d", "[[2, 32, 20, 20], [64, 8, 3, 3], [], [], [], [], []]",
                        R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])",
                        R"(["","","","[1, 1]","[2, 2]","[2, 2]","4"])");
  // dilated span 2·2+1 = 5; out (20+4-5)/1+1 = 20: 2·2·64·8·9·400
  EXPECT_DOUBLE_EQ(c.flops, 7372800);
}

TEST(ConvModel, OneDimensionalWithStride) {
  OpCost c = EstimateOp("aten::conv1d", "[[4, 16, 100], [32, 16, 5], [], [], [], [], []]",
                        R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])",
                        R"(["","","","[2]","[0]","[1]","1"])");
  EXPECT_DOUBLE_EQ(c.flops, 983040);  // out (100-5)/2+1 = 48: 2·4·32·16·5·48
}

TEST(ConvModel, ThreeDimensional) {
  OpCost c = EstimateOp("aten::conv3d", "[[2, 4, 8, 16, 16], [8, 4, 3, 3, 3], [], [], [], [], []]",
                        R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])",
                        R"(["","","","[1, 1, 1]","[1, 1, 1]","[1, 1, 1]","1"])");
  EXPECT_DOUBLE_EQ(c.flops, 7077888);  // out 8·16·16 = 2048: 2·2·8·4·27·2048
}

TEST(ConvModel, MissingGeometryAssumesSameSizeAndSaysSo) {
  // 2021-era trace: no Concrete Inputs at all.
  OpCost c = EstimateOp(
      "aten::cudnn_convolution", "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
      R"(["float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool"])", "");
  EXPECT_TRUE(c.conv_assumed_geometry);
  EXPECT_DOUBLE_EQ(c.flops, 30211571712);  // out assumed 224·224: 2·32·64·3·49·50176
  EXPECT_DOUBLE_EQ(c.bytes, 430347008);    // (32·3·224² + 64·3·49 + 32·64·224²)·4
}

TEST(ConvModel, MissingGeometryTakesTheOutputShapeTheTraceShows) {
  // ResNet's stem: 7×7 stride 2 → 112×112, as the next op's input or grad_output shows.
  const std::int64_t out[] = {32, 64, 112, 112};
  OpCost c =
      EstimateOp("aten::cudnn_convolution", "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
                 R"(["float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool"])",
                 "", Dtype::kUnknown, out);
  EXPECT_FALSE(c.conv_assumed_geometry);
  EXPECT_TRUE(c.conv_output_from_trace);
  EXPECT_DOUBLE_EQ(c.flops, 7552892928);  // 2·32·64·3·49·12544: a quarter of the stride-1 guess
  // A shape whose channels disagree with the weight is not this convolution's output.
  const std::int64_t other[] = {32, 128, 112, 112};
  OpCost d =
      EstimateOp("aten::cudnn_convolution", "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
                 R"(["float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool"])",
                 "", Dtype::kUnknown, other);
  EXPECT_TRUE(d.conv_assumed_geometry);
  EXPECT_DOUBLE_EQ(d.flops, 30211571712);
}

TEST(ConvModel, BackwardIsTwiceForwardWithOutputFromGradOutput) {
  OpCost c = EstimateOp(
      "aten::convolution_backward",
      "[[10, 512, 7, 7], [10, 512, 7, 7], [512, 512, 3, 3], [], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"])",
      R"(["","","","[0]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, False]"])");
  EXPECT_EQ(c.model, "conv_bwd");
  EXPECT_TRUE(c.backward);
  EXPECT_DOUBLE_EQ(c.flops, 4624220160);  // 2 × (2·10·512·512·9·49)
  EXPECT_DOUBLE_EQ(c.bytes, 10942464);    // grad_out 250880·2 + 2·(x 501760 + w 4718592)
}

// A stem convolution's backward computes no input gradient (output_mask [False, True, False], as
// PyTorch records it for the first layer): one forward's FLOPs, and no grad input written or
// weight read for it.
TEST(ConvModel, BackwardFollowsItsOutputMask) {
  auto backward = [](const char* mask) {
    return EstimateOp(
        "aten::convolution_backward",
        "[[10, 512, 7, 7], [10, 512, 7, 7], [512, 512, 3, 3], [], [], [], [], [], [], [], []]",
        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"])",
        std::string(R"(["","","","[0]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1",")") + mask + "\"]");
  };
  OpCost weight_only = backward("[False, True, False]");
  EXPECT_DOUBLE_EQ(weight_only.flops, 2312110080);  // 1 × (2·10·512·512·9·49)
  EXPECT_DOUBLE_EQ(weight_only.bytes, 5722112);     // grad_out 501760 + (x 501760 + w 4718592)
  EXPECT_DOUBLE_EQ(backward("[True, False, True]").flops, 2312110080);
  EXPECT_DOUBLE_EQ(backward("[True, True, True]").flops, 4624220160);
  EXPECT_DOUBLE_EQ(backward("[True,True,False]").flops, 4624220160);
  EXPECT_FALSE(backward("[False, False, True]").modeled());  // only the bias: a reduction, no conv
  EXPECT_DOUBLE_EQ(backward("garbled").flops, 4624220160);   // an unreadable mask: both halves
}

TEST(ConvModel, LegacyCudnnBackwardNeedsNoGeometry) {
  OpCost c = EstimateOp(
      "aten::cudnn_convolution_backward",
      "[[32, 512, 7, 7], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], [], []]",
      R"(["float","float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool","GenericList"])",
      "");
  EXPECT_FALSE(c.conv_assumed_geometry);
  EXPECT_DOUBLE_EQ(c.flops, 6576668672);  // 2 × (2·32·2048·512·1·49)
}

TEST(ConvModel, LegacyBackwardHalvesAreOneForwardEach) {
  OpCost in = EstimateOp(
      "aten::cudnn_convolution_backward_input",
      "[[], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], []]",
      R"(["GenericList","float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool"])",
      "");
  EXPECT_TRUE(in.backward);
  EXPECT_DOUBLE_EQ(in.flops, 3288334336);  // 2·32·2048·512·1·49
  EXPECT_DOUBLE_EQ(in.bytes, 17039360);    // (grad_out 3211264 + w 1048576)·4; grad input size not given
  // The weight half needs the kernel size, which only Concrete Inputs carry.
  const char* wdims = "[[], [32, 2048, 7, 7], [32, 512, 7, 7], [], [], [], [], [], [], []]";
  EXPECT_FALSE(EstimateOp("aten::cudnn_convolution_backward_weight", wdims, "", "").modeled());
  OpCost w =
      EstimateOp("aten::cudnn_convolution_backward_weight", wdims, "",
                 R"(["[2048, 512, 1, 1]","","","[0, 0]","[1, 1]","[1, 1]","1","False","False","True"])");
  EXPECT_DOUBLE_EQ(w.flops, 3288334336);
  EXPECT_DOUBLE_EQ(w.bytes, 20250624);  // (grad_out 3211264 + x 802816 + w 1048576)·4
}

TEST(ConvModel, TransposedCountsInputPositions) {
  // conv_transpose2d(input[1,16,8,8], weight[16,8,4,4]): 2·1·16·8·16·64
  OpCost c =
      EstimateOp("aten::conv_transpose2d", "[[1, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], []]",
                 R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList"])",
                 R"(["","","","[2, 2]","[1, 1]","[0, 0]","1","[1, 1]"])");
  EXPECT_DOUBLE_EQ(c.flops, 262144);
}

TEST(AttentionModel, FlashForwardNonCausal) {
  OpCost c =
      EstimateOp("aten::_scaled_dot_product_flash_attention",
                 "[[8, 16, 4096, 128], [8, 16, 4096, 128], [8, 16, 4096, 128], [], [], [], []]",
                 R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])",
                 R"(["","","","0.","False","False","0.088388347648318433"])");
  EXPECT_EQ(c.model, "sdpa_fwd");
  EXPECT_DOUBLE_EQ(c.flops, 1099511627776);  // 2·8·16·4096·4096·(128+128)
  EXPECT_DOUBLE_EQ(c.bytes, 536870912);      // (q + k + v + out)·2 = 4·8·16·4096·128·2
}

TEST(AttentionModel, PublicSdpaCausalHalves) {
  OpCost c = EstimateOp(
      "aten::scaled_dot_product_attention",
      "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], [], []]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar","Scalar"])",
      R"(["","","","","0.","True","0.125","False"])");
  EXPECT_DOUBLE_EQ(c.flops, 10239377408);  // 2·16·16·559·559·128 / 2
}

TEST(AttentionModel, FlashForwardKernelLayoutIsBatchSeqHeads) {
  OpCost c = EstimateOp(
      "aten::_flash_attention_forward",
      "[[16, 559, 16, 64], [16, 559, 16, 64], [16, 559, 16, 64], [], [], [], [], [], [], [], [], [], [], [], "
      "[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","","","",""])",
      R"(["","","","","","559","559","0.","True","False","0.125","","","",""])");
  EXPECT_DOUBLE_EQ(c.flops, 10239377408);  // same as the public op above
}

TEST(AttentionModel, CausalWithDifferentLengthsIsNotHalved) {
  OpCost c = EstimateOp("aten::scaled_dot_product_attention",
                        "[[1, 8, 1, 64], [1, 8, 100, 64], [1, 8, 100, 64], [], [], [], [], []]",
                        R"(["c10::Half","c10::Half","c10::Half","","Scalar","Scalar","Scalar","Scalar"])",
                        R"(["","","","","0.","True","",""])");
  EXPECT_DOUBLE_EQ(c.flops, 204800);  // 2·1·8·1·100·128, Lq ≠ Lk
}

TEST(AttentionModel, BackwardCausalAndNot) {
  const char* dims =
      "[[8, 16, 4096, 128], [8, 16, 4096, 128], [8, 16, 4096, 128], [8, 16, 4096, 128], [8, 16, 4096, 128], "
      "[8, 16, 4096], [], [], [], [], [], [], [], [], []]";
  const char* types =
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","","","Scalar","Scalar","Scalar","Scalar","","","Scalar"])";
  OpCost causal = EstimateOp("aten::_scaled_dot_product_flash_attention_backward", dims, types,
                             R"(["","","","","","","","","4096","4096","0.","True","","","0.088"])");
  OpCost full = EstimateOp("aten::_scaled_dot_product_flash_attention_backward", dims, types,
                           R"(["","","","","","","","","4096","4096","0.","False","","","0.088"])");
  EXPECT_EQ(full.model, "sdpa_bwd");
  EXPECT_TRUE(full.backward);
  EXPECT_DOUBLE_EQ(full.flops, 2748779069440);    // 2.5 × 1099511627776
  EXPECT_DOUBLE_EQ(causal.flops, 1374389534720);  // 2.5 × 1099511627776 / 2
  EXPECT_DOUBLE_EQ(full.bytes, 1073741824);       // 2·(q+k+v) + 2·out = 8 tensors of 134217728 B
}

TEST(AttentionModel, GroupedQueryHeadsCountQueryHeads) {
  // 32 query heads, 8 key/value heads: 2·2·32·128·128·(64+64)
  OpCost c = EstimateOp(
      "aten::scaled_dot_product_attention",
      "[[2, 32, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], [], [], [], [], []]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar","Scalar"])",
      R"(["","","","","0.","False","","True"])");
  EXPECT_DOUBLE_EQ(c.flops, 268435456);
  EXPECT_DOUBLE_EQ(c.bytes, 2621440);  // q 524288 + k 131072 + v 131072 + out 524288, ·2
}

TEST(AttentionModel, EfficientAttentionKernelMaskType) {
  const char* dims =
      "[[4, 256, 8, 64], [4, 256, 8, 64], [4, 256, 8, 64], [], [], [], [], [], [], [], [], []]";
  const char* types = R"(["float","float","float","","","","","","Scalar","Scalar","Scalar","Scalar"])";
  OpCost causal = EstimateOp("aten::_efficient_attention_forward", dims, types,
                             R"(["","","","","","","","","0.","1","False",""])");
  OpCost full = EstimateOp("aten::_efficient_attention_forward", dims, types,
                           R"(["","","","","","","","","0.","0","False",""])");
  EXPECT_DOUBLE_EQ(full.flops, 536870912);  // 2·4·8·256·256·128
  EXPECT_DOUBLE_EQ(causal.flops, 268435456);
}

TEST(AttentionModel, PackedVariableLengthUsesEqualLengthsLowerBound) {
  // cum_seq_q has 4 entries: 3 sequences sharing 1000 tokens.
  OpCost c = EstimateOp("aten::_flash_attention_forward",
                        "[[1000, 16, 64], [1000, 16, 64], [1000, 16, 64], [4], [4]]",
                        R"(["c10::Half","c10::Half","c10::Half","int","int"])", "");
  EXPECT_EQ(c.model, "varlen_attention_fwd");
  EXPECT_NEAR(c.flops, 2.0 * 16 * 1000 * 1000 / 3 * 128, 1);  // 2·H·Tq·Tk/B·(D + Dv)
  EXPECT_DOUBLE_EQ(c.bytes, 8192000);                         // (3 + 1)·1000·16·64·2
  OpCost causal = EstimateOp(
      "flash_attn::_flash_attn_varlen_forward",
      "[[1000, 16, 64], [1000, 16, 64], [1000, 16, 64], [4], [4], [], [], [], [], [], [], []]",
      R"(["c10::Half","c10::Half","c10::Half","int","int","Int","Int","Double","Double","Bool","Int","Int"])",
      R"(["","","","","","512","512","0.","0.125","True","-1","-1"])");
  EXPECT_NEAR(causal.flops, c.flops / 2, 1);
  OpCost no_offsets =
      EstimateOp("aten::_flash_attention_forward", "[[1000, 16, 64], [1000, 16, 64], [1000, 16, 64]]",
                 R"(["c10::Half","c10::Half","c10::Half"])", "");
  EXPECT_FALSE(no_offsets.modeled());
}

TEST(AttentionModel, PagedDecodeHasAKvCacheByteModelAndNoFlops) {
  // paged_attention_v1(out, query[8,32,128], key_cache[1000,8,16,16,8], value_cache, 8, scale,
  // block_tables[8,64], seq_lens[8], block_size 16, max_seq_len 500, ...)
  OpCost c = EstimateOp("_C::paged_attention_v1",
                        "[[8, 32, 128], [8, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], "
                        "[8, 64], [8], [], []]",
                        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","Int","Double",)"
                        R"("int","int","Int","Int"])",
                        R"(["","","","","8","0.088","","","16","500"])");
  EXPECT_EQ(c.model, "paged_attention_bytes");
  EXPECT_LT(c.flops, 0);
  // max_seq_len 500 → 32 blocks of 16 per sequence, each block 8·16·16·8 = 16384 elements:
  // KV 2·8·32·16384·2 bytes; query in and out 2·8·32·128·2.
  EXPECT_DOUBLE_EQ(c.bytes, 2.0 * 8 * 32 * 16384 * 2 + 2.0 * 8 * 32 * 128 * 2);
}

TEST(MemoryModel, ElementwiseWithScalar) {
  OpCost c =
      EstimateOp("aten::add", "[[16, 559, 1], [], []]", R"(["float","double","Scalar"])", R"(["","","1"])");
  EXPECT_EQ(c.model, "elementwise");
  EXPECT_FALSE(c.heavy);
  EXPECT_DOUBLE_EQ(c.flops, 8944);   // one per output element
  EXPECT_DOUBLE_EQ(c.bytes, 71552);  // in 8944·4 + out 8944·4
}

TEST(MemoryModel, ElementwiseBroadcast) {
  OpCost c = EstimateOp("aten::add", "[[2, 128, 128], [128], []]", R"(["float","float","Scalar"])", "");
  EXPECT_DOUBLE_EQ(c.flops, 32768);
  EXPECT_DOUBLE_EQ(c.bytes, 262656);  // (32768 + 128 + 32768)·4
}

TEST(MemoryModel, ThresholdBackwardIsElementwiseBackward) {
  OpCost c = EstimateOp("aten::threshold_backward", "[[10, 512, 7, 7], [10, 512, 7, 7], []]",
                        R"(["c10::BFloat16","c10::BFloat16","Scalar"])", R"(["","","0"])");
  EXPECT_TRUE(c.backward);
  EXPECT_DOUBLE_EQ(c.bytes, 1505280);  // 3 · 250880 · 2
}

TEST(MemoryModel, ReductionOverLastDim) {
  OpCost c = EstimateOp("aten::mean", "[[16, 559, 1024], [], [], []]",
                        R"(["float","ScalarList","Scalar",""])", R"(["","[-1]","True",""])");
  EXPECT_EQ(c.model, "reduction");
  EXPECT_DOUBLE_EQ(c.flops, 9158656);
  EXPECT_DOUBLE_EQ(c.bytes, 36670400);  // in 9158656·4 + out 8944·4
}

TEST(MemoryModel, ReductionOverFirstDimAndFull) {
  OpCost dim0 = EstimateOp("aten::sum", "[[5, 128], [], [], []]", R"(["float","ScalarList","Scalar",""])",
                           R"(["","[0]","True",""])");
  EXPECT_DOUBLE_EQ(dim0.bytes, 3072);  // (640 + 128)·4
  OpCost all = EstimateOp("aten::mean", "[[5, 128], [], [], [], []]",
                          R"(["float","ScalarList","Scalar","","float"])", R"(["","[]","False","",""])");
  EXPECT_DOUBLE_EQ(all.bytes, 2564);  // (640 + 1)·4
}

TEST(MemoryModel, LayerNormAndBatchNorm) {
  OpCost ln = EstimateOp("aten::native_layer_norm", "[[4, 128, 768], [], [768], [768], []]",
                         R"(["c10::BFloat16","ScalarList","c10::BFloat16","c10::BFloat16","Scalar"])", "");
  EXPECT_EQ(ln.model, "norm");
  EXPECT_DOUBLE_EQ(ln.bytes, 1575936);  // (393216 + 768 + 768)·2 + out 393216·2
  OpCost bn = EstimateOp(
      "aten::native_batch_norm", "[[10, 512, 7, 7], [512], [512], [512], [512], [], [], []]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar"])",
      R"(["","","","","","True","0.1","1e-05"])");
  EXPECT_DOUBLE_EQ(bn.bytes, 1007616);  // (250880 + 4·512)·2 + 250880·2
  OpCost bwd =
      EstimateOp("aten::native_layer_norm_backward",
                 "[[4, 128, 768], [4, 128, 768], [], [4, 128, 1], [4, 128, 1], [768], [768], []]",
                 R"(["float","float","ScalarList","float","float","float","float","ScalarList"])", "");
  EXPECT_TRUE(bwd.backward);
  EXPECT_DOUBLE_EQ(bwd.bytes, 4728832);  // (2·393216 + 2·512 + 2·768 + grad_in 393216)·4
}

TEST(MemoryModel, SoftmaxForwardAndBackward) {
  OpCost f =
      EstimateOp("aten::_softmax", "[[8, 16, 128, 128], [], []]", R"(["c10::Half","Scalar","Scalar"])", "");
  EXPECT_DOUBLE_EQ(f.bytes, 8388608);  // 2·2097152·2
  OpCost b = EstimateOp("aten::_softmax_backward_data", "[[8, 16, 128, 128], [8, 16, 128, 128], [], []]",
                        R"(["c10::Half","c10::Half","Scalar","Scalar"])", "");
  EXPECT_TRUE(b.backward);
  EXPECT_DOUBLE_EQ(b.bytes, 12582912);  // 3·2097152·2
}

TEST(MemoryModel, CopiesAtEachSidesWidth) {
  OpCost copy = EstimateOp("aten::copy_", "[[1, 1, 559], [1, 1, 559], []]",
                           R"(["float","long int","Scalar"])", R"(["","","False"])");
  EXPECT_DOUBLE_EQ(copy.bytes, 6708);  // 559·4 + 559·8
  OpCost cast =
      EstimateOp("aten::_to_copy", "[[5, 128], [], [], [], [], [], []]",
                 R"(["float","Scalar","Scalar","","","Scalar",""])", R"(["","15","0","","","False",""])");
  EXPECT_DOUBLE_EQ(cast.bytes, 3840);  // 640·4 read + 640·2 written (ScalarType 15 = BFloat16)
  OpCost clone =
      EstimateOp("aten::clone", "[[16, 16, 559, 64], []]", R"(["c10::BFloat16","Scalar"])", R"(["","0"])");
  EXPECT_DOUBLE_EQ(clone.bytes, 36634624);  // 2·9158656·2
}

TEST(MemoryModel, GathersCountRowsTouchedNotTheTable) {
  OpCost emb = EstimateOp("aten::embedding", "[[151936, 1024], [16, 559], [], [], []]",
                          R"(["c10::BFloat16","long int","Scalar","Scalar","Scalar"])",
                          R"(["","","-1","False","False"])");
  EXPECT_EQ(emb.model, "gather");
  EXPECT_DOUBLE_EQ(emb.bytes, 36706176);  // indices 8944·8 + 2·8944·1024·2
  OpCost sel = EstimateOp("aten::index_select", "[[151936, 1024], [], [8944]]",
                          R"(["c10::BFloat16","Scalar","long int"])", R"(["","0",""])");
  EXPECT_DOUBLE_EQ(sel.bytes, 36706176);
  OpCost bwd =
      EstimateOp("aten::embedding_dense_backward", "[[8944, 1024], [8944], [], [], []]",
                 R"(["float","long int","Scalar","Scalar","Scalar"])", R"(["","","1000","-1","False"])");
  EXPECT_DOUBLE_EQ(bwd.bytes, 40802176);  // grad 9158656·4 + idx 8944·8 + dense 1000·1024·4
}

TEST(MemoryModel, CatOfTensorListUsesContextDtype) {
  OpCost c = EstimateOp("aten::cat", "[[[1, 559, 32], [1, 559, 32]], []]", R"(["TensorList","Scalar"])",
                        R"(["","-1"])", Dtype::kBf16);
  EXPECT_EQ(c.model, "cat");
  EXPECT_TRUE(c.dtype_assumed);
  EXPECT_DOUBLE_EQ(c.bytes, 143104);  // 2 · (2·17888·2)
}

TEST(MemoryModel, CatWithoutShapesHasNoModel) {
  EXPECT_FALSE(EstimateOp("aten::cat", "[[], []]", R"(["TensorList","Scalar"])", "").modeled());
}

TEST(MemoryModel, ForeachOverLists) {
  OpCost c = EstimateOp("aten::_foreach_add_", "[[[128, 128], [128]], [[128, 128], [128]], []]",
                        R"(["TensorList","TensorList","Scalar"])", R"(["","","-0.001"])", Dtype::kFp32);
  EXPECT_DOUBLE_EQ(c.flops, 16512);
  EXPECT_DOUBLE_EQ(c.bytes, 198144);  // (2·16512 read + 16512 written)·4
}

TEST(OpCost, UnknownOpAndBadInputHaveNoModel) {
  OpCost unknown = EstimateOp("aten::uniform_", "[[5, 128]]", R"(["float"])", "");
  EXPECT_FALSE(unknown.modeled());
  EXPECT_EQ(unknown.flops, -1);
  EXPECT_EQ(unknown.bytes, -1);
  EXPECT_FALSE(EstimateOp("aten::mm", "[[8,512],[512", "", "").modeled());
  EXPECT_FALSE(EstimateOp("cublas::gemm", "[[8,512],[256,1024]]", "", "").modeled());
  EXPECT_FALSE(EstimateOp("aten::mm", "", "", "").modeled());
}

TEST(OpCost, EveryPrefixOfValidInputIsHandled) {
  // Truncated or mangled argument texts must never crash and never give a negative cost.
  const char* dims = "[[8, 16, 4096, 128], [8, 16, 4096, 128], [8, 16, 4096, 128], [], [], [], []]";
  const char* types =
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])";
  const char* concrete = R"(["","","","0.","True","False","0.088"])";
  const std::string d(dims), t(types), c(concrete);
  for (const char* op :
       {"aten::_scaled_dot_product_flash_attention", "aten::convolution", "aten::add", "aten::cat"}) {
    for (std::size_t n = 0; n <= d.size(); ++n) {
      OpCost cost = EstimateOp(op, d.substr(0, n), t, c);
      EXPECT_TRUE(!cost.modeled() || (cost.flops >= 0 && cost.bytes >= 0)) << op << " " << d.substr(0, n);
    }
    for (std::size_t n = 0; n <= t.size(); ++n) (void)EstimateOp(op, d, t.substr(0, n), c.substr(0, n));
  }
  EXPECT_FALSE(EstimateOp("aten::mm", "[[-8, 512], [512, -2]]", "", "").modeled());
}

TEST(OpCost, TraceWithoutInputTypesAssumesFp32) {
  OpCost c = EstimateOp("aten::mm", "[[2,3],[3,4]]", "", "");
  EXPECT_TRUE(c.dtype_assumed);
  EXPECT_EQ(c.dtype, Dtype::kFp32);
  EXPECT_DOUBLE_EQ(c.flops, 48);
  EXPECT_DOUBLE_EQ(c.bytes, 104);  // (6 + 12 + 8)·4
}

TEST(CompiledModel, InductorTritonKernelsReadAndWriteEachArgumentOnce) {
  // triton_poi_fused_add_cos_sin_0(in_ptr0, in_ptr1, out_ptr0, xnumel) as the profiler records it.
  OpCost c = EstimateOp("triton_poi_fused_add_cos_sin_0", "[[10, 10], [10, 10], [10, 10], []]",
                        R"(["float","float","float","Scalar"])", R"(["","","","100"])");
  EXPECT_EQ(c.model, "triton_pointwise");
  EXPECT_DOUBLE_EQ(c.flops, 0);
  EXPECT_DOUBLE_EQ(c.bytes, 1200);  // 3 · 100 · 4
  EXPECT_FALSE(EstimateOp("triton_tem_fused_mm_0", "[[10, 10]]", R"(["float"])", "").modeled());
}

TEST(SparseModel, FbgemmQuantizePermuteAndLookupIndexBytes) {
  OpCost q =
      EstimateOp("fbgemm::FloatToFP8RowwiseQuantized", "[[1000, 256], []]", R"(["float","Scalar"])", "");
  EXPECT_EQ(q.model, "quantize");
  EXPECT_DOUBLE_EQ(q.bytes, 1000.0 * 256 * 4 + 1000.0 * 256);  // read fp32, write one byte each
  OpCost p = EstimateOp("fbgemm::permute_2D_sparse_data", "[[1390], [1334, 2048], [6416], [], []]",
                        R"(["int","int","int","","Scalar"])", "");
  EXPECT_EQ(p.model, "permute");
  EXPECT_DOUBLE_EQ(p.bytes, 2.0 * (1390 + 1334 * 2048 + 6416) * 4);
  // Table-batched lookup: indices [L] (arg 11) and offsets [B·T + 1] (arg 12), int64.
  OpCost l =
      EstimateOp("fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function",
                 "[[0], [7722480160], [0], [0, 0], [9], [9], [10], [], [], [10], [], [30111429], "
                 "[2359297], [], []]",
                 R"(["float","c10::Half","c10::Half","c10::Half","int","long","int","Scalar","Scalar",)"
                 R"("long","Scalar","long","long","Scalar",""])",
                 "");
  EXPECT_EQ(l.model, "embedding_lookup_indices");
  EXPECT_DOUBLE_EQ(l.bytes, (30111429.0 + 2359297.0) * 8);
  EXPECT_FALSE(EstimateOp("fbgemm::something_else", "[[4]]", R"(["float"])", "").modeled());
}

}  // namespace
}  // namespace plasmient::roofline
