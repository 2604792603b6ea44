// Built as libcublas.so.13 (and .12, STANDIN_VERSION) for the RTLD_LOCAL tests: every entry point
// the interposer wraps counts its calls and succeeds.
#include <cublas_v2.h>

namespace {
int g_calls = 0;

cublasStatus_t Count() {
  ++g_calls;
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace

extern "C" {

int standin_cublas_calls() { return g_calls; }
int standin_cublas_version() { return STANDIN_VERSION; }

cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                            void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) {
  return Count();
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                          const void*, const void*, cudaDataType, int, long long int,
                                          const void*, cudaDataType, int, long long int, const void*, void*,
                                          cudaDataType, int, long long int, int, cublasComputeType_t,
                                          cublasGemmAlgo_t) {
  return Count();
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                   const void*, const void* const[], cudaDataType, int, const void* const[],
                                   cudaDataType, int, const void*, void* const[], cudaDataType, int, int,
                                   cublasComputeType_t, cublasGemmAlgo_t) {
  return Count();
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                              const float*, const float*, int, const float*, int, const float*, float*, int) {
  return Count();
}

cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                              const double*, const double*, int, const double*, int, const double*, double*,
                              int) {
  return Count();
}

cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const __half*,
                           const __half*, int, const __half*, int, const __half*, __half*, int) {
  return Count();
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const float*, const float*, int, long long int, const float*, int,
                                         long long int, const float*, float*, int, long long int, int) {
  return Count();
}

cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const __half*, const __half*, int, long long int, const __half*, int,
                                         long long int, const __half*, __half*, int, long long int, int) {
  return Count();
}

}  // extern "C"
