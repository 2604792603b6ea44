// Inline traces for tests: each call adds op -> launch -> GPU activity, the op and its launch on
// host thread 1 at a tenth of the activity's start time; times in ns.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/time_units.h"
#include "model/trace_builder.h"

namespace plasmient::verdict::testing {

struct LaunchBuilder {
  model::TraceBuilder b;
  std::int64_t corr = 1;
  // An empty `op` adds the launch and the activity alone. Returns the activity's GPU row.
  std::int32_t Kernel(std::string_view op, std::string_view dims, std::string_view types,
                      std::string_view kernel, TimeNs start, TimeNs end,
                      model::GpuKind kind = model::GpuKind::kKernel, std::int32_t stream = 7) {
    const TimeNs host = start / 10;  // launches happen before their kernels
    if (!op.empty()) {
      b.AddCpuOp({.start_ns = host,
                  .end_ns = host + 5,
                  .pid = 1,
                  .tid = 1,
                  .name = op,
                  .input_dims = dims,
                  .input_types = types});
    }
    b.AddApi({.start_ns = host + 1,
              .end_ns = host + 2,
              .pid = 1,
              .tid = 1,
              .name = "cudaLaunchKernel",
              .correlation = corr});
    return b.AddGpu({.start_ns = start,
                     .end_ns = end,
                     .stream = stream,
                     .name = kernel,
                     .kind = kind,
                     .correlation = corr++});
  }
};

}  // namespace plasmient::verdict::testing
