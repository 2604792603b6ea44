// What a GPU kernel's name says: GEMM/conv/attention class, element type, TF32 path.
#pragma once

#include <string_view>

#include "roofline/dtype.h"

namespace plasmient::roofline {

// GEMM, convolution and attention kernels (cuBLAS, cuBLASLt nvjet, CUTLASS, xmma, wgmma,
// cuDNN convolutions, flash/fmha, AMD Tensile Cijk_ and MIOpen, Triton mm templates).
bool IsHeavyKernelName(std::string_view kernel_name);
// The operand type a kernel name states (bf16, f16/h*gemm, sgemm = fp32, tf32, e4m3/fp8,
// i8/imma, dgemm); kUnknown when it states none.
Dtype DtypeFromKernelName(std::string_view kernel_name);
// The name shows fp32 data on the TF32 tensor-core path ("tf32", "xf32", or a tensor-op
// instruction shape such as 1688/16816 with no narrower operand type in the name).
bool IsTf32KernelName(std::string_view kernel_name);

}  // namespace plasmient::roofline
