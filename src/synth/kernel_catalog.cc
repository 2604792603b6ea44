#include "synth/kernel_catalog.h"

#include <algorithm>
#include <iterator>

namespace plasmient::synth {
namespace {

// GEMM layouts: forward linear is "tn", grad-input "nn", grad-weight "nt".
std::string_view GemmName(const GpuSpec& gpu, int layout, bool small) {
  static constexpr std::string_view kSm90[3] = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_"
      "kernel__5x_cublas",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_"
      "kernel__5x_cublas"};
  static constexpr std::string_view kSm90Small =
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas";
  static constexpr std::string_view kAmpere[3] = {
      "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
      "ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_nn",
      "ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_nt"};
  static constexpr std::string_view kAmpereSmall =
      "ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x5_tn";
  const bool sm90 = gpu.gemm_prefix == "sm90";
  if (small) return sm90 ? kSm90Small : kAmpereSmall;
  return sm90 ? kSm90[layout] : kAmpere[layout];
}

constexpr std::string_view kGemv =
    "void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, float, 128, 16, 4, 4, false, false, "
    "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, "
    "cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, "
    "float> >"
    "(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, "
    "cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, "
    "float>, float, float)";

}  // namespace

std::string_view KernelName(const Item& item, const GpuSpec& gpu) {
  switch (item.kind) {
    case OpKind::kLinear:
      if (item.d[0] <= 4) return kGemv;
      return GemmName(gpu, 0, item.d[0] < 256);
    case OpKind::kMm: {
      // dX = dY . W (rows = tokens) is "nn"; dW = dY^T . X is "nt".
      const bool grad_weight = item.d[2] >= item.d[0];
      return GemmName(gpu, grad_weight ? 2 : 1, std::min(item.d[0], item.d[1]) < 256);
    }
    case OpKind::kSdpaFwd:
      if (item.d[2] == 1) {
        return "void pytorch_flash::flash_fwd_splitkv_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 64, "
               "128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, "
               "4, cutlass::bfloat16_t> >, false, false, false, false, true, true, "
               "false>(pytorch_flash::Flash_fwd_params)";
      }
      return "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, "
             "false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, "
             "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, "
             "false>(pytorch_flash::Flash_fwd_params)";
    case OpKind::kSdpaBwd:
      return "void "
             "pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_"
             "traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
             "pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, false, true, "
             "false, false, false, true>(pytorch_flash::Flash_bwd_params)";
    case OpKind::kLayerNorm:
      return "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
             "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
             "float*, c10::BFloat16*)";
    case OpKind::kLayerNormBwd:
      return "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, "
             "float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 "
             "const*, c10::BFloat16*, int)";
    case OpKind::kGelu:
      return "void at::native::vectorized_elementwise_kernel<4, "
             "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
             "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
             "const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, "
             "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
             "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
             "const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)";
    case OpKind::kGeluBwd:
      return "void at::native::vectorized_elementwise_kernel<4, "
             "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
             "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
             "const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, "
             "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
             "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
             "const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)";
    case OpKind::kAdd:
      return "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
             "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
             "3ul>)";
    case OpKind::kAdamUpdate:
      return "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
             "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
    case OpKind::kLogSoftmax:
      return "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
             "c10::BFloat16, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(c10::BFloat16*, "
             "c10::BFloat16 const*, int)";
    case OpKind::kSoftmax:
      return "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
             "c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, "
             "c10::BFloat16 const*, int)";
    case OpKind::kTopk:
      return "void at::native::sbtopk::gatherTopK<c10::BFloat16, unsigned int, 2, "
             "false>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, unsigned int, unsigned "
             "int, bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<c10::BFloat16, unsigned "
             "int>, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int)";
    case OpKind::kCopy:
      return "void at::native::elementwise_kernel<128, 4, "
             "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
             "::{lambda()#3}::operator()() const::{lambda()#12}::operator()() "
             "const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
             "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
             "const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} "
             "const&)::{lambda(int)#1}>(int, "
             "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
             "::{lambda()#3}::operator()() const::{lambda()#12}::operator()() "
             "const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
             "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
             "const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})";
    case OpKind::kArgmax:
      return "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, "
             "at::native::ArgMaxOps<c10::BFloat16>, unsigned int, long, 4, 4> "
             ">(at::native::ReduceOp<c10::BFloat16, at::native::ArgMaxOps<c10::BFloat16>, unsigned int, "
             "long, 4, 4>)";
    case OpKind::kCustomUnmodeled:
      return "void fused_rotary_embedding_kernel<__nv_bfloat16, 128>(__nv_bfloat16*, __nv_bfloat16 const*, "
             "float const*, int, int)";
    case OpKind::kTritonNoOp:
      return "triton_poi_fused_add_mul_sigmoid_0";
    case OpKind::kMemcpyH2D:
      return "Memcpy HtoD (Pinned -> Device)";
    case OpKind::kMemcpyD2H:
      return "Memcpy DtoH (Device -> Pinned)";
    case OpKind::kMemsetZero:
      return "Memset (Device)";
    case OpKind::kAllReduce:
      return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    // NCCL runs all-to-all as grouped send/recv: the kernel name says SendRecv, the
    // collective args say all_to_allv.
    case OpKind::kAllToAll:
    case OpKind::kSend:
    case OpKind::kRecv:
      return "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
    default:
      return "";
  }
}

std::string_view LaunchingOpName(OpKind kind) {
  switch (kind) {
    case OpKind::kLinear:
      return "aten::addmm";
    case OpKind::kMm:
      return "aten::mm";
    case OpKind::kSdpaFwd:
      return "aten::_scaled_dot_product_flash_attention";
    case OpKind::kSdpaBwd:
      return "aten::_scaled_dot_product_flash_attention_backward";
    case OpKind::kLayerNorm:
      return "aten::native_layer_norm";
    case OpKind::kLayerNormBwd:
      return "aten::native_layer_norm_backward";
    case OpKind::kGelu:
      return "aten::gelu";
    case OpKind::kGeluBwd:
      return "aten::gelu_backward";
    case OpKind::kAdd:
      return "aten::add";
    case OpKind::kLogSoftmax:
      return "aten::_log_softmax";
    case OpKind::kSoftmax:
      return "aten::_softmax";
    case OpKind::kTopk:
      return "aten::topk";
    case OpKind::kCopy:
      return "aten::copy_";
    case OpKind::kArgmax:
      return "aten::argmax";
    case OpKind::kAdamUpdate:
      return "aten::add_";
    case OpKind::kCustomUnmodeled:
      return "myext::fused_rotary_embedding";
    case OpKind::kMemcpyH2D:
      return "aten::copy_";
    case OpKind::kMemcpyD2H:
      return "aten::_local_scalar_dense";
    case OpKind::kMemsetZero:
      return "aten::zero_";
    case OpKind::kAllReduce:
    case OpKind::kAllToAll:
    case OpKind::kSend:
    case OpKind::kRecv:
      return "record_param_comms";
    default:
      return "";
  }
}

std::string_view CollectiveName(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
      return "allreduce";
    case OpKind::kAllToAll:
      return "all_to_allv";
    case OpKind::kSend:
      return "send";
    case OpKind::kRecv:
      return "recv";
    default:
      return "";
  }
}

LaunchGeometry Geometry(const Item& item) {
  LaunchGeometry g;
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return std::max<std::int64_t>(1, (a + b - 1) / b); };
  switch (item.kind) {
    case OpKind::kLinear:
    case OpKind::kMm:
      g.grid = {ceil_div(item.d[1], 128), ceil_div(item.d[0], 128), 1};
      g.block = {384, 1, 1};
      g.registers_per_thread = 168;
      g.shared_memory = 213048;
      break;
    case OpKind::kSdpaFwd:
    case OpKind::kSdpaBwd:
      g.grid = {ceil_div(item.d[2], 128), item.d[0], item.d[1]};
      g.block = {item.kind == OpKind::kSdpaFwd ? 128 : 256, 1, 1};
      g.registers_per_thread = 255;
      g.shared_memory = 98304;
      break;
    case OpKind::kLayerNorm:
    case OpKind::kLayerNormBwd:
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
    case OpKind::kArgmax:
    case OpKind::kTopk:
      g.grid = {std::max<std::int64_t>(1, item.d[0]), 1, 1};
      g.block = {256, 1, 1};
      g.registers_per_thread = 40;
      g.shared_memory = 32;
      break;
    case OpKind::kAllReduce:
    case OpKind::kAllToAll:
    case OpKind::kSend:
    case OpKind::kRecv:
      g.grid = {IsP2p(item.kind) ? 2 : 16, 1, 1};
      g.block = {640, 1, 1};
      g.registers_per_thread = 96;
      g.shared_memory = 87568;
      break;
    case OpKind::kCustomUnmodeled:
    case OpKind::kTritonNoOp:
      g.grid = {1024, 1, 1};
      g.block = {128, 1, 1};
      g.registers_per_thread = 32;
      break;
    default: {
      const std::int64_t numel = std::max<std::int64_t>(1, item.d[0] * std::max<std::int64_t>(1, item.d[1]));
      g.grid = {std::min<std::int64_t>(ceil_div(numel, 512), 2147483647), 1, 1};
      g.block = {128, 1, 1};
      g.registers_per_thread = 26;
      break;
    }
  }
  return g;
}

namespace {

void Dims4(fmt::memory_buffer& out, std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
  fmt::format_to(std::back_inserter(out), "[{}, {}, {}, {}]", a, b, c, d);
}

void Append(fmt::memory_buffer& out, std::string_view s) { out.append(s.data(), s.data() + s.size()); }

}  // namespace

void AppendShapeArgs(fmt::memory_buffer& out, const Item& item, std::int64_t seq_len) {
  const std::int64_t m = item.d[0], n = item.d[1], k = item.d[2];
  const std::string_view bf = DtypeTorchName(item.dtype);
  auto it = std::back_inserter(out);
  switch (item.kind) {
    case OpKind::kLinear:  // aten::addmm(bias, mat1, mat2, beta, alpha)
      fmt::format_to(it,
                     "\"Input Dims\": [[{}], [{}, {}], [{}, {}], [], []], "
                     "\"Input type\": [\"{}\", \"{}\", \"{}\", \"Scalar\", \"Scalar\"], "
                     "\"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"]",
                     n, m, k, k, n, bf, bf, bf);
      (void)seq_len;
      return;
    case OpKind::kMm:
      fmt::format_to(it,
                     "\"Input Dims\": [[{}, {}], [{}, {}]], \"Input type\": [\"{}\", \"{}\"], "
                     "\"Concrete Inputs\": [\"\", \"\"]",
                     m, k, k, n, bf, bf);
      return;
    case OpKind::kSdpaFwd: {
      const std::int64_t b = item.d[0], h = item.d[1], lq = item.d[2], lk = item.d[3], d = item.d[4];
      Append(out, "\"Input Dims\": [");
      Dims4(out, b, h, lq, d);
      Append(out, ", ");
      Dims4(out, b, h, lk, d);
      Append(out, ", ");
      Dims4(out, b, h, lk, d);
      fmt::format_to(it,
                     ", [], [], [], []], \"Input type\": [\"{0}\", \"{0}\", \"{0}\", \"Scalar\", "
                     "\"Scalar\", \"Scalar\", \"\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"0.\", "
                     "\"{1}\", \"False\", \"\"]",
                     bf, item.causal ? "True" : "False");
      return;
    }
    case OpKind::kSdpaBwd: {
      const std::int64_t b = item.d[0], h = item.d[1], lq = item.d[2], lk = item.d[3], d = item.d[4];
      Append(out, "\"Input Dims\": [");
      Dims4(out, b, h, lq, d);
      Append(out, ", ");
      Dims4(out, b, h, lq, d);
      Append(out, ", ");
      Dims4(out, b, h, lk, d);
      Append(out, ", ");
      Dims4(out, b, h, lk, d);
      Append(out, ", ");
      Dims4(out, b, h, lq, d);
      fmt::format_to(it,
                     ", [{0}, {1}, {2}], [], [], [], [], [], [], [], [], []], \"Input type\": "
                     "[\"{4}\", \"{4}\", \"{4}\", \"{4}\", \"{4}\", \"float\", \"\", \"\", \"Scalar\", "
                     "\"Scalar\", \"Scalar\", \"Scalar\", \"long int\", \"long int\", \"\"], "
                     "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"{3}\", "
                     "\"{3}\", \"0.\", \"{5}\", \"\", \"\", \"\"]",
                     b, h, lq, lk, bf, item.causal ? "True" : "False");
      return;
    }
    case OpKind::kLayerNorm:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}, {1}], [], [{1}], [{1}], []], \"Input type\": "
                     "[\"{2}\", \"ScalarList\", \"{2}\", \"{2}\", \"Scalar\"], \"Concrete Inputs\": "
                     "[\"\", \"[{1}]\", \"\", \"\", \"1e-05\"]",
                     m, n, bf);
      return;
    case OpKind::kLayerNormBwd:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}, {1}], [{0}, {1}], [], [{0}, 1], [{0}, 1], [{1}], [{1}], []], "
                     "\"Input type\": [\"{2}\", \"{2}\", \"ScalarList\", \"float\", \"float\", \"{2}\", "
                     "\"{2}\", \"ScalarList\"], \"Concrete Inputs\": [\"\", \"\", \"[{1}]\", \"\", \"\", "
                     "\"\", \"\", \"[True, True, True]\"]",
                     m, n, bf);
      return;
    case OpKind::kGelu:
      fmt::format_to(it,
                     "\"Input Dims\": [[{}, {}], []], \"Input type\": [\"{}\", \"\"], "
                     "\"Concrete Inputs\": [\"\", \"none\"]",
                     m, n, bf);
      return;
    case OpKind::kGeluBwd:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}, {1}], [{0}, {1}], []], \"Input type\": [\"{2}\", \"{2}\", "
                     "\"\"], \"Concrete Inputs\": [\"\", \"\", \"none\"]",
                     m, n, bf);
      return;
    case OpKind::kAdamUpdate:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}], [{0}], []], \"Input type\": [\"{1}\", \"{1}\", \"Scalar\"], "
                     "\"Concrete Inputs\": [\"\", \"\", \"-0.0001\"]",
                     m * std::max<std::int64_t>(1, n), bf);
      return;
    case OpKind::kAdd:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}, {1}], [{0}, {1}], []], \"Input type\": [\"{2}\", \"{2}\", "
                     "\"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"{3}\"]",
                     m, n, bf, item.kind == OpKind::kAdd ? "1" : "-0.0001");
      return;
    case OpKind::kLogSoftmax:
    case OpKind::kSoftmax:
    case OpKind::kArgmax:
      fmt::format_to(it,
                     "\"Input Dims\": [[{}, {}], [], []], \"Input type\": [\"{}\", \"Scalar\", "
                     "\"Scalar\"], \"Concrete Inputs\": [\"\", \"-1\", \"False\"]",
                     m, n, bf);
      return;
    case OpKind::kTopk:
      fmt::format_to(it,
                     "\"Input Dims\": [[{}, {}], [], [], [], []], \"Input type\": [\"{}\", \"Scalar\", "
                     "\"Scalar\", \"Scalar\", \"Scalar\"], \"Concrete Inputs\": [\"\", \"{}\", \"-1\", "
                     "\"True\", \"True\"]",
                     m, n, bf, k);
      return;
    case OpKind::kCopy:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}, {1}], [{0}, {1}], []], \"Input type\": [\"{2}\", \"{2}\", "
                     "\"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"False\"]",
                     m, n, bf);
      return;
    case OpKind::kMemcpyH2D:
      fmt::format_to(it,
                     "\"Input Dims\": [[{0}], [{0}], []], \"Input type\": [\"long int\", \"long int\", "
                     "\"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"True\"]",
                     std::max<std::int64_t>(1, m / 8));
      return;
    case OpKind::kMemcpyD2H:
      Append(out, "\"Input Dims\": [[]], \"Input type\": [\"float\"], \"Concrete Inputs\": [\"\"]");
      return;
    case OpKind::kMemsetZero:
      fmt::format_to(it, "\"Input Dims\": [[{}]], \"Input type\": [\"{}\"], \"Concrete Inputs\": [\"\"]",
                     std::max<std::int64_t>(1, m / 2), bf);
      return;
    default:
      return;
  }
}

}  // namespace plasmient::synth
