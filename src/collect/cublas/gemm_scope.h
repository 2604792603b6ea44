// Ties cuBLAS calls to the kernels they launch: while a GEMM call is in progress on a thread,
// the CUPTI launch callback on that thread reports each launch's correlation id here.
#pragma once

#include <cstdint>

namespace plasmient::collect {

struct GemmScope {
  std::uint32_t first_correlation = 0;
  std::uint32_t launches = 0;
};

// The innermost GEMM call in progress on this thread, or null.
GemmScope*& CurrentGemmScope();

inline void NoteKernelLaunch(std::uint32_t correlation) {
  if (GemmScope* s = CurrentGemmScope()) {
    if (s->launches == 0) s->first_correlation = correlation;
    ++s->launches;
  }
}

}  // namespace plasmient::collect
