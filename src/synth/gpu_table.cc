#include "synth/gpu_table.h"

#include <array>

namespace plasmient::synth {
namespace {

constexpr std::array<GpuSpec, 3> kGpus = {{
    {"h100_sxm", "NVIDIA H100 80GB HBM3", 989.4e12, 494.7e12, 67e12, 3.35e12, 132, 9, 0, 85018279936, 232448,
     233472, "sm90"},
    {"a100_sxm_80gb", "NVIDIA A100-SXM4-80GB", 312e12, 156e12, 19.5e12, 2.039e12, 108, 8, 0, 85198045184,
     166912, 167936, "ampere"},
    {"h200_sxm", "NVIDIA H200", 989.4e12, 494.7e12, 67e12, 4.8e12, 132, 9, 0, 150754820096, 232448, 233472,
     "sm90"},
}};

}  // namespace

std::span<const GpuSpec> GpuTable() { return kGpus; }

const GpuSpec* FindGpu(std::string_view key) {
  for (const GpuSpec& gpu : kGpus) {
    if (gpu.key == key) return &gpu;
  }
  return nullptr;
}

double PeakFlops(const GpuSpec& gpu, Dtype dtype) {
  switch (dtype) {
    case Dtype::kBf16:
    case Dtype::kFp16:
      return gpu.bf16_flops_per_s;
    case Dtype::kFp32:
    case Dtype::kInt64:
      return gpu.fp32_flops_per_s;
  }
  return gpu.bf16_flops_per_s;
}

std::string_view DtypeName(Dtype dtype) {
  switch (dtype) {
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kFp32:
      return "fp32";
    case Dtype::kInt64:
      return "int64";
  }
  return "bf16";
}

std::string_view DtypeTorchName(Dtype dtype) {
  switch (dtype) {
    case Dtype::kBf16:
      return "c10::BFloat16";
    case Dtype::kFp16:
      return "c10::Half";
    case Dtype::kFp32:
      return "float";
    case Dtype::kInt64:
      return "long int";
  }
  return "c10::BFloat16";
}

int DtypeBytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::kBf16:
    case Dtype::kFp16:
      return 2;
    case Dtype::kFp32:
      return 4;
    case Dtype::kInt64:
      return 8;
  }
  return 2;
}

}  // namespace plasmient::synth
