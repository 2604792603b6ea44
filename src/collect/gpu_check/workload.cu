// GPU check workload: a GEMM of known size (cuBLAS, bf16), a memory-bound kernel, and copies,
// each timed with CUDA events, inside NVTX ranges; then steady-state steps (a burst of small
// kernels and a GEMM), each timed with CUDA events, whose median after a warm-up is the figure
// the agent's overhead is judged on. Prints one JSON line of its own timings so
// scripts/gpu-check.sh can compare them with what the agent recorded.
// Build: nvcc -O2 -std=c++17 -arch=native workload.cu -lcublas -o workload
// Run:   workload [M=8192] [ITERS=20] [STEPS=60]
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    auto rc_ = (x);                                                                \
    if (rc_ != 0) {                                                                \
      std::fprintf(stderr, "%s failed (%d) at line %d\n", #x, (int)rc_, __LINE__); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

__global__ void Triad(float* a, const float* b, const float* c, float s, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < n; i += stride) a[i] = b[i] + s * c[i];
}

__global__ void Scale(float* a, float s, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

__global__ void Fill(__nv_bfloat16* x, size_t n, float v) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = __float2bfloat16(v * ((i % 7) - 3));
}

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 60;
  const int warm_steps = 10;
  const int step_launches = 64;  // small kernels per step: the launch path is what the agent costs
  const int n = m, k = m;
  const size_t triad_n = size_t{1} << 26;  // 64 Mi floats: 768 MiB moved per triad
  const size_t copy_bytes = size_t{256} << 20;

  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  float ms = 0;

  // Copies: pinned host <-> device.
  nvtxRangePushA("copies");
  void *host = nullptr, *dev = nullptr;
  CHECK(cudaMallocHost(&host, copy_bytes));
  CHECK(cudaMalloc(&dev, copy_bytes));
  CHECK(cudaEventRecord(e0));
  CHECK(cudaMemcpy(dev, host, copy_bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(host, dev, copy_bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  float copy_ms = ms;
  CHECK(cudaMemset(dev, 0, copy_bytes));
  nvtxRangePop();

  // Memory-bound: triad.
  nvtxRangePushA("triad");
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, triad_n * sizeof(float)));
  CHECK(cudaMalloc(&b, triad_n * sizeof(float)));
  CHECK(cudaMalloc(&c, triad_n * sizeof(float)));
  CHECK(cudaMemset(b, 0, triad_n * sizeof(float)));
  CHECK(cudaMemset(c, 0, triad_n * sizeof(float)));
  Triad<<<1024, 256>>>(a, b, c, 2.0f, triad_n);  // warm-up
  CHECK(cudaEventRecord(e0));
  for (int i = 0; i < iters; ++i) Triad<<<1024, 256>>>(a, b, c, 2.0f, triad_n);
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  float triad_ms = ms / iters;
  nvtxRangePop();

  // GEMM: bf16 in, fp32 accumulate.
  nvtxRangePushA("gemm");
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  __nv_bfloat16 *A, *B, *C;
  CHECK(cudaMalloc(&A, sizeof(__nv_bfloat16) * (size_t)m * k));
  CHECK(cudaMalloc(&B, sizeof(__nv_bfloat16) * (size_t)k * n));
  CHECK(cudaMalloc(&C, sizeof(__nv_bfloat16) * (size_t)m * n));
  Fill<<<(unsigned)(((size_t)m * k + 255) / 256), 256>>>(A, (size_t)m * k, 0.01f);
  Fill<<<(unsigned)(((size_t)k * n + 255) / 256), 256>>>(B, (size_t)k * n, 0.02f);
  float alpha = 1, beta = 0;
  auto gemm = [&] {
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_16BF, m, B,
                       CUDA_R_16BF, k, &beta, C, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT));
  };
  for (int i = 0; i < 3; ++i) gemm();  // warm-up (heuristics, clocks)
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0));
  for (int i = 0; i < iters; ++i) gemm();
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  float gemm_ms = ms / iters;
  nvtxRangePop();

  // Steady-state steps: CUDA events around each; the warm-up steps are left out of the median.
  const int step_m = std::min(2048, m);
  const size_t small_n = size_t{1} << 18;
  std::vector<float> step_ms;
  for (int s = 0; s < warm_steps + steps; ++s) {
    nvtxRangePushA("step");
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < step_launches; ++i) Scale<<<(unsigned)(small_n / 256), 256>>>(a, 1.0f, small_n);
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, step_m, step_m, step_m, &alpha, A, CUDA_R_16BF,
                       step_m, B, CUDA_R_16BF, step_m, &beta, C, CUDA_R_16BF, step_m, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT));
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    nvtxRangePop();
    if (s >= warm_steps) step_ms.push_back(ms);
  }
  std::sort(step_ms.begin(), step_ms.end());
  float step_median = step_ms.empty() ? 0 : step_ms[step_ms.size() / 2];

  double tflops = 2.0 * m * n * k / (gemm_ms * 1e-3) / 1e12;
  std::printf(
      "{\"m\":%d,\"n\":%d,\"k\":%d,\"iters\":%d,\"gemm_ms\":%.4f,\"gemm_tflops\":%.2f,"
      "\"triad_ms\":%.4f,\"triad_gbps\":%.1f,\"copy_ms\":%.3f,\"copy_bytes\":%zu,"
      "\"steps\":%d,\"step_launches\":%d,\"step_ms_median\":%.4f}\n",
      m, n, k, iters, gemm_ms, tflops, triad_ms, 3.0 * triad_n * sizeof(float) / (triad_ms * 1e6),
      copy_ms, copy_bytes, steps, step_launches, step_median);
  cublasDestroy(handle);
  return 0;
}
