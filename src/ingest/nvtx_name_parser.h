// Meaning in NVTX range names: PyTorch's emit_nvtx ranges carry the op and its input shapes
// ("aten::mm, seq = 12, op_id = 7, sizes = [[8, 512], [512, 1024]]"), and ProfilerStep#N
// ranges mark steps. Everything else is a plain annotation. Shared by the readers of NVTX ranges:
// Nsight Systems exports and the agent's native files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/trace.h"

namespace plasmient::ingest {

struct NvtxRangeMeaning {
  model::CpuOpKind kind = model::CpuOpKind::kAnnotation;
  std::string_view name;   // the op name without its annotations, else the whole text
  std::string input_dims;  // "[[8,512],[512,1024]]" (no spaces, as the model keeps it), or ""
  std::int64_t step = model::kNoId;
};

NvtxRangeMeaning ParseNvtxRangeName(std::string_view text);

}  // namespace plasmient::ingest
