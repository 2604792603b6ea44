// A stand-in for libcublas in tests: each GEMM entry point counts the call, reports one
// kernel launch to the agent (as the CUPTI launch callback would) and returns success.
#include <cublas_v2.h>
#include <dlfcn.h>

namespace {
int g_calls = 0;
unsigned g_next_correlation = 100;

void Launch() {
  using NoteLaunch = void (*)(unsigned);
  static auto note = reinterpret_cast<NoteLaunch>(dlsym(RTLD_DEFAULT, "plasmient_agent_note_launch"));
  if (note != nullptr) note(g_next_correlation);
  ++g_next_correlation;
}
}  // namespace

extern "C" {

int fake_cublas_calls() { return g_calls; }

cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                            void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) {
  ++g_calls;
  Launch();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                          const void*, const void*, cudaDataType, int, long long int,
                                          const void*, cudaDataType, int, long long int, const void*, void*,
                                          cudaDataType, int, long long int, int, cublasComputeType_t,
                                          cublasGemmAlgo_t) {
  ++g_calls;
  Launch();
  Launch();  // e.g. a split-K reduction
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                              const float*, const float*, int, const float*, int, const float*, float*, int) {
  ++g_calls;
  Launch();
  return CUBLAS_STATUS_EXECUTION_FAILED;  // the interposer must pass the status through
}

}  // extern "C"
