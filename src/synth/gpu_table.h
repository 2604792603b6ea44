// The devices synth can pretend to be: datasheet peaks (dense) and the properties the
// driver reports, keyed like the device table, docs/devices.md (h100_sxm, a100_sxm_80gb, ...).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace plasmient::synth {

enum class Dtype : std::uint8_t { kBf16, kFp16, kFp32, kInt64 };

struct GpuSpec {
  std::string_view key;          // device table key (docs/devices.md)
  std::string_view driver_name;  // deviceProperties.name as the driver reports it
  double bf16_flops_per_s;       // dense tensor peak, also used for fp16
  double tf32_flops_per_s;
  double fp32_flops_per_s;
  double mem_bytes_per_s;
  int num_sms;
  int compute_major;
  int compute_minor;
  std::int64_t total_global_mem_bytes;
  int shared_mem_per_block_optin;
  int shared_mem_per_sm;
  std::string_view gemm_prefix;  // "sm90" or "ampere": cuBLAS kernel family for GEMMs
};

std::span<const GpuSpec> GpuTable();
// nullptr when the key names no row.
const GpuSpec* FindGpu(std::string_view key);
// Peak FLOP/s of a dtype on this device (fp32 math on fp32 inputs, tensor peak for 16-bit).
double PeakFlops(const GpuSpec& gpu, Dtype dtype);
std::string_view DtypeName(Dtype dtype);       // "bf16", "fp16", "fp32", "int64"
std::string_view DtypeTorchName(Dtype dtype);  // "c10::BFloat16", "float", ...
int DtypeBytes(Dtype dtype);

}  // namespace plasmient::synth
