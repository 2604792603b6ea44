// A library linked against the stand-in libcublas.so.13 and loaded with dlopen(RTLD_LOCAL), as
// PyTorch loads libtorch_cuda and libcublas: its cuBLAS calls bind to the interposer first.
#include <cublas_v2.h>

extern "C" int standin_cublas_calls();

extern "C" int cublas_user_gemm() {
  float one = 1;
  return cublasGemmEx(reinterpret_cast<cublasHandle_t>(0x1), CUBLAS_OP_N, CUBLAS_OP_N, 64, 32, 16, &one,
                      nullptr, CUDA_R_16BF, 64, nullptr, CUDA_R_16BF, 16, &one, nullptr, CUDA_R_16BF, 64,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

extern "C" int cublas_user_standin_calls() { return standin_cublas_calls(); }
