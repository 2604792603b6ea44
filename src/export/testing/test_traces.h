// Small inline traces for the sinks' tests: known steps, kernels, a collective and samples.
#pragma once

#include <string>

#include "model/trace_builder.h"
#include "verdict/analyze.h"
#include "verdict/testing/launch_builder.h"
#include "verdict/testing/test_options.h"

namespace plasmient::exporting::testing_traces {

using verdict::testing::kBw;
using verdict::testing::kPeak;

inline verdict::AnalyzeOptions Options() { return verdict::testing::TestOptions(); }

using Builder = verdict::testing::LaunchBuilder;

// Three 1 ms steps of GEMM (0–400 µs), an all-reduce half under it (200–600 µs, 64 MiB over
// ranks [0, 1]) and an elementwise add (600–700 µs). Step 1 is followed by `stall_ns` of idle
// (a host stall), which makes it the worst step. `gemm_ns` sets the GEMM's duration.
inline model::Trace ThreeStepRank(std::int64_t rank, TimeNs stall_ns = 600'000, TimeNs gemm_ns = 400'000) {
  Builder t;
  t.b.info().rank = rank;
  t.b.info().path = "rank" + std::to_string(rank) + ".json";
  TimeNs base = 0;
  for (int s = 0; s < 3; ++s) {
    t.b.AddCpuOp({.start_ns = base / 10,
                  .end_ns = (base + 1'000'000) / 10,
                  .pid = 1,
                  .tid = 1,
                  .name = "ProfilerStep#" + std::to_string(s),
                  .kind = model::CpuOpKind::kStep,
                  .step = s});
    t.b.AddCpuOp({.start_ns = base / 10,
                  .end_ns = (base + 900'000) / 10,
                  .pid = 1,
                  .tid = 1,
                  .name = "model.forward",
                  .kind = model::CpuOpKind::kAnnotation});
    t.Kernel("aten::mm", "[[1024,1024],[1024,1024]]", R"(["c10::BFloat16","c10::BFloat16"])",
             "sm90_xmma_gemm_bf16bf16_bf16f32", base, base + gemm_ns);
    std::int32_t ar = t.Kernel("", "", "", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", base + 200'000,
                               base + 600'000, model::GpuKind::kKernel, 9);
    t.b.AddCollective({.gpu = ar,
                       .name = "allreduce",
                       .dtype = "BFloat16",
                       .group_size = 2,
                       .pg_name = "0",
                       .pg_ranks = "[0, 1]",
                       .seq = s,
                       .bytes = 64 << 20});
    t.Kernel("aten::add", "[[1048576],[1048576],[]]", R"(["c10::BFloat16","c10::BFloat16","Scalar"])",
             "vectorized_elementwise_kernel", base + 600'000, base + 700'000);
    t.b.AddSample({.ts_ns = base, .metric = "gpu_utilization", .value = 97.0 + s});
    base += 1'000'000 + (s == 1 ? stall_ns : 0);
  }
  return std::move(t.b).Finish();
}

}  // namespace plasmient::exporting::testing_traces
