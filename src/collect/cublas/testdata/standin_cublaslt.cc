// Built as libcublasLt.so.13 for the RTLD_LOCAL tests: cublasLtMatmul counts its calls; the
// attribute getters read descriptors whose opaque words hold each attribute's value at the
// attribute's index (cublas_user.cc fills them).
#include <cublasLt.h>

#include <cstring>

namespace {
int g_calls = 0;

template <std::size_t N>
cublasStatus_t Get(const uint64_t (&words)[N], int attr, void* buf, std::size_t size, std::size_t* written) {
  if (attr < 0 || static_cast<std::size_t>(attr) >= N || size > sizeof words[0]) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  std::memcpy(buf, &words[attr], size);  // little-endian: the low bytes
  if (written != nullptr) *written = size;
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace

extern "C" {

int standin_cublaslt_calls() { return g_calls; }

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                              void* buf, size_t size, size_t* written) {
  return Get(desc->data, attr, buf, size, written);
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t layout,
                                                cublasLtMatrixLayoutAttribute_t attr, void* buf, size_t size,
                                                size_t* written) {
  return Get(layout->data, attr, buf, size, written);
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*,
                              cublasLtMatrixLayout_t, const void*, cublasLtMatrixLayout_t, const void*,
                              const void*, cublasLtMatrixLayout_t, void*, cublasLtMatrixLayout_t,
                              const cublasLtMatmulAlgo_t*, void*, size_t, cudaStream_t) {
  ++g_calls;
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
