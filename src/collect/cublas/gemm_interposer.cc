// cuBLAS/cuBLASLt interposer: exported from the agent .so under cuBLAS's own names, so with
// LD_PRELOAD it sees each GEMM call first, records M, N, K, batch and dtypes, and forwards to
// the real function (real_cublas.h: the one the caller was linked against, also when cuBLAS was
// loaded RTLD_LOCAL, as PyTorch loads it).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>

#include "collect/agent/agent.h"
#include "collect/agent/clock.h"
#include "collect/cublas/gemm_scope.h"
#include "collect/cublas/real_cublas.h"
#include "wire/records.h"

namespace plasmient::collect {

GemmScope*& CurrentGemmScope() {
  thread_local GemmScope* scope = nullptr;
  return scope;
}

namespace {

// Calls the real entry point `fn` with the interposer's own parameters, whose types are those
// of the cuBLAS declaration.
template <typename... Args>
cublasStatus_t ForwardTo(void* fn, Args... args) {
  return reinterpret_cast<cublasStatus_t (*)(Args...)>(fn)(args...);
}

std::uint8_t Trans(cublasOperation_t op) { return op == CUBLAS_OP_N ? 0 : op == CUBLAS_OP_T ? 1 : 2; }

// One GEMM call: the outermost call on a thread records; nested calls (cuBLAS calling
// cuBLASLt) only forward.
class GemmCall {
 public:
  GemmCall() : outer_(CurrentGemmScope() == nullptr) {
    if (outer_) {
      CurrentGemmScope() = &scope_;
      record_.start_ns = MonotonicNs();
    }
  }
  ~GemmCall() {
    if (!outer_) return;
    CurrentGemmScope() = nullptr;
    if (!shaped_) return;
    Agent* agent = Agent::Get();
    // Between kernel windows there are no kernels to tie the call to: nothing to record.
    if (agent == nullptr || !agent->kernels_on()) return;
    record_.header = wire::HeaderFor<wire::GemmRecord>(wire::RecordKind::kGemm);
    record_.end_ns = MonotonicNs();
    record_.pid = static_cast<std::uint32_t>(getpid());
    record_.tid = static_cast<std::uint32_t>(pthread_self());
    record_.first_correlation = scope_.first_correlation;
    record_.launches = scope_.launches;
    agent->sink().PushSmall(record_);
  }
  bool outer() const { return outer_; }
  void Shape(wire::GemmApi api, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
             std::int64_t k, std::int64_t batch, int a, int b, int c, int compute) {
    if (!outer_) return;
    shaped_ = true;
    record_.api = static_cast<std::uint8_t>(api);
    record_.trans_a = Trans(ta);
    record_.trans_b = Trans(tb);
    record_.m = m;
    record_.n = n;
    record_.k = k;
    record_.batch = batch;
    record_.a_type = a;
    record_.b_type = b;
    record_.c_type = c;
    record_.compute_type = compute;
  }

 private:
  bool outer_;
  bool shaped_ = false;
  GemmScope scope_;
  wire::GemmRecord record_{};
};

}  // namespace
}  // namespace plasmient::collect

using plasmient::collect::ForwardTo;
using plasmient::collect::GemmCall;
using plasmient::wire::GemmApi;

#define PLASMIENT_EXPORT extern "C" __attribute__((visibility("default")))
// The real `name` for this call site, in `real`; when the process has none, the status cuBLAS
// gives a handle it did not create (real_cublas.h). Nothing is recorded for such a call.
#define PLASMIENT_REAL(name)                                \
  static plasmient::collect::RealEntry real_entry(#name);   \
  void* real = real_entry.For(__builtin_return_address(0)); \
  if (real == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED
#define PLASMIENT_FORWARD(...) return ForwardTo(real, __VA_ARGS__)

PLASMIENT_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                             cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                             const void* A, cudaDataType Atype, int lda, const void* B,
                                             cudaDataType Btype, int ldb, const void* beta, void* C,
                                             cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                             cublasGemmAlgo_t algo) {
  PLASMIENT_REAL(cublasGemmEx);
  GemmCall call;
  call.Shape(GemmApi::kGemmEx, transa, transb, m, n, k, 1, Atype, Btype, Ctype, computeType);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                    computeType, algo);
}

PLASMIENT_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType Atype, int lda, long long int strideA, const void* B,
    cudaDataType Btype, int ldb, long long int strideB, const void* beta, void* C, cudaDataType Ctype,
    int ldc, long long int strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  PLASMIENT_REAL(cublasGemmStridedBatchedEx);
  GemmCall call;
  call.Shape(GemmApi::kGemmStridedBatchedEx, transa, transb, m, n, k, batchCount, Atype, Btype, Ctype,
             computeType);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB,
                    beta, C, Ctype, ldc, strideC, batchCount, computeType, algo);
}

PLASMIENT_EXPORT cublasStatus_t cublasGemmBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* const Aarray[], cudaDataType Atype, int lda, const void* const Barray[],
    cudaDataType Btype, int ldb, const void* beta, void* const Carray[], cudaDataType Ctype, int ldc,
    int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  PLASMIENT_REAL(cublasGemmBatchedEx);
  GemmCall call;
  call.Shape(GemmApi::kGemmBatchedEx, transa, transb, m, n, k, batchCount, Atype, Btype, Ctype, computeType);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta,
                    Carray, Ctype, ldc, batchCount, computeType, algo);
}

PLASMIENT_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                               cublasOperation_t transb, int m, int n, int k,
                                               const float* alpha, const float* A, int lda, const float* B,
                                               int ldb, const float* beta, float* C, int ldc) {
  PLASMIENT_REAL(cublasSgemm_v2);
  GemmCall call;
  call.Shape(GemmApi::kSgemm, transa, transb, m, n, k, 1, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
             CUBLAS_COMPUTE_32F);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

PLASMIENT_EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                               cublasOperation_t transb, int m, int n, int k,
                                               const double* alpha, const double* A, int lda, const double* B,
                                               int ldb, const double* beta, double* C, int ldc) {
  PLASMIENT_REAL(cublasDgemm_v2);
  GemmCall call;
  call.Shape(GemmApi::kDgemm, transa, transb, m, n, k, 1, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F,
             CUBLAS_COMPUTE_64F);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

PLASMIENT_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
                                            cublasOperation_t transb, int m, int n, int k,
                                            const __half* alpha, const __half* A, int lda, const __half* B,
                                            int ldb, const __half* beta, __half* C, int ldc) {
  PLASMIENT_REAL(cublasHgemm);
  GemmCall call;
  call.Shape(GemmApi::kHgemm, transa, transb, m, n, k, 1, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F,
             CUBLAS_COMPUTE_16F);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

PLASMIENT_EXPORT cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                          cublasOperation_t transb, int m, int n, int k,
                                                          const float* alpha, const float* A, int lda,
                                                          long long int strideA, const float* B, int ldb,
                                                          long long int strideB, const float* beta, float* C,
                                                          int ldc, long long int strideC, int batchCount) {
  PLASMIENT_REAL(cublasSgemmStridedBatched);
  GemmCall call;
  call.Shape(GemmApi::kSgemmStridedBatched, transa, transb, m, n, k, batchCount, CUDA_R_32F, CUDA_R_32F,
             CUDA_R_32F, CUBLAS_COMPUTE_32F);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
                    strideC, batchCount);
}

PLASMIENT_EXPORT cublasStatus_t cublasHgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const __half* alpha, const __half* A, int lda, long long int strideA, const __half* B, int ldb,
    long long int strideB, const __half* beta, __half* C, int ldc, long long int strideC, int batchCount) {
  PLASMIENT_REAL(cublasHgemmStridedBatched);
  GemmCall call;
  call.Shape(GemmApi::kHgemmStridedBatched, transa, transb, m, n, k, batchCount, CUDA_R_16F, CUDA_R_16F,
             CUDA_R_16F, CUBLAS_COMPUTE_16F);
  PLASMIENT_FORWARD(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
                    strideC, batchCount);
}

namespace {

// A cuBLASLt attribute getter from the library of the real cublasLtMatmul `real` (the one that
// made the caller's descriptors), cached per library.
void* LtGetter(plasmient::collect::AddressCache& cache, void* real, const char* name) {
  auto key = reinterpret_cast<std::uintptr_t>(real);
  void* fn = cache.Find(key);
  if (fn == nullptr) {
    fn = plasmient::collect::SiblingSymbol(real, name);
    if (fn != nullptr) cache.Insert(key, fn);
  }
  return fn;
}

// Reads one attribute of a cuBLASLt descriptor with the real library's `getter`; `fallback` if
// absent.
template <typename T, typename Desc, typename Attr>
T LtAttribute(void* getter, Desc desc, Attr attr, T fallback) {
  using Getter = cublasStatus_t (*)(Desc, Attr, void*, size_t, size_t*);
  auto get = reinterpret_cast<Getter>(getter);
  T value = fallback;
  size_t written = 0;
  if (get == nullptr || desc == nullptr ||
      get(desc, attr, &value, sizeof value, &written) != CUBLAS_STATUS_SUCCESS) {
    return fallback;
  }
  return value;
}

}  // namespace

PLASMIENT_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                               const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                                               const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                                               const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
                                               cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* algo,
                                               void* workspace, size_t workspaceSizeInBytes,
                                               cudaStream_t stream) {
  PLASMIENT_REAL(cublasLtMatmul);
  GemmCall call;
  if (call.outer()) {
    static plasmient::collect::AddressCache desc_getters, layout_getters;
    void* desc_get = LtGetter(desc_getters, real, "cublasLtMatmulDescGetAttribute");
    void* layout_get = LtGetter(layout_getters, real, "cublasLtMatrixLayoutGetAttribute");
    auto ta = static_cast<cublasOperation_t>(
        LtAttribute<std::int32_t>(desc_get, computeDesc, CUBLASLT_MATMUL_DESC_TRANSA, 0));
    auto tb = static_cast<cublasOperation_t>(
        LtAttribute<std::int32_t>(desc_get, computeDesc, CUBLASLT_MATMUL_DESC_TRANSB, 0));
    auto a_rows = LtAttribute<std::uint64_t>(layout_get, Adesc, CUBLASLT_MATRIX_LAYOUT_ROWS, 0);
    auto a_cols = LtAttribute<std::uint64_t>(layout_get, Adesc, CUBLASLT_MATRIX_LAYOUT_COLS, 0);
    auto c_layout = Ddesc != nullptr ? Ddesc : Cdesc;
    auto d_cols = LtAttribute<std::uint64_t>(layout_get, c_layout, CUBLASLT_MATRIX_LAYOUT_COLS, 0);
    auto batch = LtAttribute<std::int32_t>(layout_get, c_layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1);
    std::int64_t m = static_cast<std::int64_t>(ta == CUBLAS_OP_N ? a_rows : a_cols);
    std::int64_t k = static_cast<std::int64_t>(ta == CUBLAS_OP_N ? a_cols : a_rows);
    auto type = [&](cublasLtMatrixLayout_t d) {
      return static_cast<int>(LtAttribute<std::uint32_t>(layout_get, d, CUBLASLT_MATRIX_LAYOUT_TYPE, ~0u));
    };
    call.Shape(GemmApi::kLtMatmul, ta, tb, m, static_cast<std::int64_t>(d_cols), k, batch < 1 ? 1 : batch,
               type(Adesc), type(Bdesc), type(c_layout),
               LtAttribute<std::int32_t>(desc_get, computeDesc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, -1));
  }
  PLASMIENT_FORWARD(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,
                    workspace, workspaceSizeInBytes, stream);
}
