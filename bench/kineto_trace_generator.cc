#include "kineto_trace_generator.h"

#include <array>
#include <cstdio>
#include <random>

#include <fmt/format.h>

namespace plasmient::bench {
namespace {

constexpr std::array<const char*, 8> kOps = {"aten::linear",
                                             "aten::addmm",
                                             "aten::layer_norm",
                                             "aten::gelu",
                                             "aten::scaled_dot_product_attention",
                                             "aten::add",
                                             "autograd::engine::evaluate_function: AddmmBackward0",
                                             "aten::copy_"};

constexpr std::array<const char*, 6> kKernels = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__"
    "5x_cublas",
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::"
    "BFloat16)#1}, at::detail::Array<char*, 2> >(int, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::"
    "BFloat16)#1}, at::detail::Array<char*, 2>)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
    "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
    "pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, "
    "false>"
    "(pytorch_flash::Flash_fwd_params)",
    "void at::native::elementwise_kernel<128, 2, "
    "at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<"
    "c10::BFloat16> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<c10::BFloat16> "
    "const&)::{lambda(int)#1}>"
    "(int, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<c10::BFloat16> "
    ">(at::TensorIteratorBase&, "
    "at::native::CUDAFunctor_add<c10::BFloat16> const&)::{lambda(int)#1})",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};

class Writer {
 public:
  explicit Writer(std::FILE* f) : f_(f) {}
  ~Writer() { Flush(); }
  template <typename... Args>
  void Put(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(buffer_), format, std::forward<Args>(args)...);
    if (buffer_.size() > (4u << 20)) Flush();
  }
  void Flush() {
    bytes_ += static_cast<std::int64_t>(buffer_.size());
    std::fwrite(buffer_.data(), 1, buffer_.size(), f_);
    buffer_.clear();
  }
  std::int64_t bytes() const { return bytes_ + static_cast<std::int64_t>(buffer_.size()); }

 private:
  std::FILE* f_;
  fmt::memory_buffer buffer_;
  std::int64_t bytes_ = 0;
};

}  // namespace

GeneratedTrace WriteSyntheticKinetoTrace(const std::string& path, std::int64_t target_bytes) {
  GeneratedTrace out;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return out;
  {
    Writer w(f);
    std::mt19937_64 rng(42);
    w.Put(R"({{
  "schemaVersion": 1,
  "deviceProperties": [
    {{
      "id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
      "computeMajor": 9, "computeMinor": 0,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "numSms": 132
    }}
  ],
  "distributedInfo": {{"backend": "nccl", "rank": 0, "world_size": 8}},
  "record_shapes": 1,
  "traceEvents": [
)");
    const int pid = 2910249, tid = 2919752;
    std::int64_t ts_ns = 4458676522690655;  // relative microseconds * 1000
    std::int64_t external_id = 1, correlation = 100, ev_idx = 0, step = 1;
    bool first = true;
    auto sep = [&] {
      if (!first) w.Put(",\n");
      first = false;
      ++out.events;
    };
    auto us = [](std::int64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); };
    while (w.bytes() < target_bytes) {
      if (ev_idx % 4000 == 0) {
        sep();
        w.Put(R"(  {{
    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": {}, "tid": {},
    "ts": {}, "dur": {},
    "args": {{
      "External id": {},"Record function id": 0, "Ev Idx": {}
    }}
  }})",
              step++, pid, tid, us(ts_ns), "250000.125", external_id++, ev_idx++);
      }
      std::size_t op = rng() % kOps.size();
      std::int64_t dur_ns = 5000 + static_cast<std::int64_t>(rng() % 200000);
      sep();
      w.Put(R"(  {{
    "ph": "X", "cat": "cpu_op", "name": "{}", "pid": {}, "tid": {},
    "ts": {}, "dur": {},
    "args": {{
      "External id": {},"Record function id": 0, "Sequence number": {}, "Fwd thread id": 0, "Ev Idx": {}, "Input Dims": [[8, 512, {}], [{}, {}], [{}]], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[{}, {}, 1], [{}, 1], [1]], "Concrete Inputs": ["", "", ""]
    }}
  }})",
            kOps[op], pid, tid, us(ts_ns), us(dur_ns), external_id, ev_idx / 3, ev_idx, 1024 * (op + 1), 1024,
            1024 * (op + 1), 1024, 512 * 1024, 1024, 1024);
      ++ev_idx;
      if (rng() % 3 == 0) {
        sep();
        w.Put(R"(  {{
    "ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1747): _call_impl", "pid": {}, "tid": {},
    "ts": {}, "dur": {},
    "args": {{
      "Python parent id": {}, "Python id": {}, "Ev Idx": {}
    }}
  }})",
              pid, tid, us(ts_ns - 1000), us(dur_ns + 2000), ev_idx, ev_idx + 1, ev_idx);
        ++ev_idx;
      }
      std::int64_t launch_ns = ts_ns + 2000;
      bool nccl = rng() % 50 == 0;
      std::size_t kernel = nccl ? kKernels.size() - 1 : rng() % (kKernels.size() - 1);
      sep();
      w.Put(R"(  {{
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {}, "tid": {},
    "ts": {}, "dur": {},
    "args": {{
      "External id": {}, "cbid": 211, "correlation": {}
    }}
  }})",
            pid, tid, us(launch_ns), "4.870", external_id, correlation);
      sep();
      w.Put(R"(  {{
    "ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {},
    "cat": "ac2g", "name": "ac2g"
  }})",
            correlation, pid, tid, us(launch_ns));
      std::int64_t kernel_ns = launch_ns + 15000 + static_cast<std::int64_t>(rng() % 5000);
      sep();
      if (nccl) {
        w.Put(R"(  {{
    "ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 20,
    "ts": {}, "dur": {},
    "args": {{
      "External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 20, "correlation": {}, "registers per thread": 96, "shared memory": 87568, "blocks per SM": 0.074074, "warps per SM": 1.259259, "grid": [8, 1, 1], "block": [544, 1, 1], "est. achieved occupancy %": 0, "Collective name": "allreduce", "In msg nelems": 6637568, "Out msg nelems": 6637568, "Group size": 8, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"
    }}
  }})",
              kKernels[kernel], us(kernel_ns), us(dur_ns), external_id, correlation);
      } else {
        w.Put(R"(  {{
    "ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7,
    "ts": {}, "dur": {},
    "args": {{
      "External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {}, "registers per thread": 128, "shared memory": 49152, "blocks per SM": 1.939394, "warps per SM": 7.757576, "grid": [256, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 12
    }}
  }})",
              kKernels[kernel], us(kernel_ns), us(dur_ns / 2), external_id, correlation);
      }
      sep();
      w.Put(R"(  {{
    "ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {},
    "cat": "ac2g", "name": "ac2g", "bp": "e"
  }})",
            correlation, us(kernel_ns));
      ++external_id;
      ++correlation;
      ts_ns += dur_ns + 1000;
    }
    w.Put(R"(
  ],
  "traceName": "synthetic.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1767189312000000000
}}
)");
    w.Flush();
    out.bytes = w.bytes();
  }
  std::fclose(f);
  return out;
}

}  // namespace plasmient::bench
