// Built as libcublas.so.13 for the RTLD_LOCAL test: cublasGemmEx counts its calls and succeeds.
#include <cublas_v2.h>

namespace {
int g_calls = 0;
}  // namespace

extern "C" {

int standin_cublas_calls() { return g_calls; }

cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                            void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) {
  ++g_calls;
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
