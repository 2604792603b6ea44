// A library linked against the stand-in libcublas.so.N and libcublasLt.so.13 and loaded with
// dlopen(RTLD_LOCAL), as PyTorch loads libtorch_cuda and libcublas: its cuBLAS calls bind to the
// interposer first.
#include <cublasLt.h>
#include <cublas_v2.h>

extern "C" int standin_cublas_calls();
extern "C" int standin_cublas_version();
extern "C" int standin_cublaslt_calls();

namespace {
const auto kHandle = reinterpret_cast<cublasHandle_t>(0x1);
}  // namespace

extern "C" {

int cublas_user_gemm() {
  float one = 1;
  return cublasGemmEx(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 64, 32, 16, &one, nullptr, CUDA_R_16BF, 64, nullptr,
                      CUDA_R_16BF, 16, &one, nullptr, CUDA_R_16BF, 64, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

// Every other cuBLAS entry point the interposer wraps, once each; the sum of their statuses.
int cublas_user_every_entry_point() {
  float f = 1;
  double d = 1;
  __half h{};
  const void* arrays[1] = {nullptr};
  void* out[1] = {nullptr};
  int sum = 0;
  sum += cublasGemmStridedBatchedEx(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &f, nullptr, CUDA_R_16F, 8, 0,
                                    nullptr, CUDA_R_16F, 8, 0, &f, nullptr, CUDA_R_16F, 8, 0, 2,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  sum +=
      cublasGemmBatchedEx(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &f, arrays, CUDA_R_16F, 8, arrays,
                          CUDA_R_16F, 8, &f, out, CUDA_R_16F, 8, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  sum +=
      cublasSgemm_v2(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &f, nullptr, 8, nullptr, 8, &f, nullptr, 8);
  sum +=
      cublasDgemm_v2(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &d, nullptr, 8, nullptr, 8, &d, nullptr, 8);
  sum += cublasHgemm(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &h, nullptr, 8, nullptr, 8, &h, nullptr, 8);
  sum += cublasSgemmStridedBatched(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &f, nullptr, 8, 0, nullptr, 8,
                                   0, &f, nullptr, 8, 0, 2);
  sum += cublasHgemmStridedBatched(kHandle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &h, nullptr, 8, 0, nullptr, 8,
                                   0, &h, nullptr, 8, 0, 2);
  return sum;
}

// cublasLtMatmul of a bf16 [48 x 24] x [24 x 40] product with a batch of 3, its shapes in the
// stand-in descriptors.
int cublas_user_lt_matmul() {
  cublasLtMatmulDescOpaque_t desc{};
  desc.data[CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = CUBLAS_COMPUTE_32F;
  desc.data[CUBLASLT_MATMUL_DESC_TRANSA] = CUBLAS_OP_N;
  desc.data[CUBLASLT_MATMUL_DESC_TRANSB] = CUBLAS_OP_N;
  auto layout = [](unsigned long rows, unsigned long cols) {
    cublasLtMatrixLayoutOpaque_t l{};
    l.data[CUBLASLT_MATRIX_LAYOUT_TYPE] = CUDA_R_16BF;
    l.data[CUBLASLT_MATRIX_LAYOUT_ROWS] = rows;
    l.data[CUBLASLT_MATRIX_LAYOUT_COLS] = cols;
    l.data[CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 3;
    return l;
  };
  cublasLtMatrixLayoutOpaque_t a = layout(48, 24), b = layout(24, 40), c = layout(48, 40);
  float one = 1;
  return cublasLtMatmul(reinterpret_cast<cublasLtHandle_t>(0x2), &desc, &one, nullptr, &a, nullptr, &b, &one,
                        nullptr, &c, nullptr, &c, nullptr, nullptr, 0, nullptr);
}

int cublas_user_standin_calls() { return standin_cublas_calls(); }
int cublas_user_standin_version() { return standin_cublas_version(); }
int cublas_user_lt_calls() { return standin_cublaslt_calls(); }

}  // extern "C"
