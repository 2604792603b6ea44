// A library with cuBLAS linked into it (no libcublas.so in the process), loaded RTLD_LOCAL: its
// own exported cublasGemmEx is called through its PLT, so the interposer comes first.
#include <cublas_v2.h>

namespace {
int g_calls = 0;
}  // namespace

extern "C" {

cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                            void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) {
  ++g_calls;
  return CUBLAS_STATUS_SUCCESS;
}

int static_user_gemm() {
  float one = 1;
  return cublasGemmEx(reinterpret_cast<cublasHandle_t>(0x1), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, nullptr,
                      CUDA_R_32F, 8, nullptr, CUDA_R_32F, 8, &one, nullptr, CUDA_R_32F, 8, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

int static_user_calls() { return g_calls; }

}  // extern "C"
