// Datasheet peaks per device (dense, no 2:4 sparsity), memory bandwidth, interconnect,
// and a default price, from docs/devices.md; and matching a trace's device to a row.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "roofline/dtype.h"

namespace plasmient::roofline {

// The arithmetic pipes a datasheet quotes a peak for.
enum class PeakKind : std::uint8_t {
  kFp64,        // FP64 vector
  kFp64Tensor,  // FP64 tensor core / matrix core
  kFp32,        // FP32 vector (CUDA cores)
  kFp32Matrix,  // FP32 matrix (AMD packed FP32 / MFMA); 0 where the chip has none
  kTf32,        // TF32 tensor
  kBf16,        // BF16 tensor
  kFp16,        // FP16 tensor
  kFp8,         // FP8 tensor
  kInt8,        // INT8 tensor (ops/s)
  kCount
};
inline constexpr int kPeakKinds = static_cast<int>(PeakKind::kCount);
std::string_view PeakKindName(PeakKind kind);

// How fp32 matrix work runs: IEEE FP32 (PyTorch's default for matmul) or TF32 tensor cores.
enum class MathMode : std::uint8_t { kIeeeFp32, kTf32 };
// The user's --fp32-math: auto (matmul IEEE, convolution TF32, kernel names decide), or forced.
enum class Fp32MathOption : std::uint8_t { kAuto, kIeee, kTf32 };
// Kernel-name evidence of TF32 wins; then the user's choice; then the PyTorch defaults
// (matmul allow_tf32=False, cuDNN convolution allow_tf32=True).
MathMode ChooseMathMode(Fp32MathOption option, bool is_convolution, std::string_view kernel_name);

struct DeviceSpec {
  std::string_view key;                               // "h100_sxm"
  std::string_view name;                              // "NVIDIA H100 SXM 80GB"
  std::array<double, kPeakKinds> peak_flops_per_s{};  // 0 = no such pipe / not given
  double memory_bandwidth_bytes_per_s = 0;
  double memory_bytes = 0;
  int sm_count = 0;                  // SMs (NVIDIA) or CUs (AMD); 0 = not given
  double boost_ghz = 0;              // 0 = not given
  double gpu_link_bytes_per_s = 0;   // NVLink / Infinity Fabric, bidirectional aggregate per GPU; 0 = none
  double host_link_bytes_per_s = 0;  // PCIe, bidirectional; 0 = not given
  double price_per_gpu_hour = 0;     // rough on-demand cloud list price, USD (assumption)
  bool verified = false;             // every figure re-read from a source (false: some recalled or derived)

  double Peak(PeakKind kind) const { return peak_flops_per_s[static_cast<int>(kind)]; }
};

std::span<const DeviceSpec> DeviceTable();

struct DeviceMatch {
  const DeviceSpec* spec = nullptr;
  std::string reason;  // how the row was chosen, for the report
};

// A trace's deviceProperties: name ("NVIDIA A100-SXM4-80GB", "AMD Radeon Graphics"...),
// SM/CU count, compute capability, and total memory (0 = unknown).
Result<DeviceMatch> MatchDevice(std::string_view name, int sm_count, int cc_major, int cc_minor,
                                std::int64_t total_memory_bytes = 0);
// A user's --gpu: a table key ("h100_sxm"), an alias ("H100", "a100"), or a device name.
Result<DeviceMatch> FindDeviceByKey(std::string_view key_or_name);

// The peak that bounds work of this dtype: bf16/fp16/fp8/int8 tensor pipes; fp32 per math
// mode (TF32 tensor, else FP32 matrix where the chip has one, else FP32 vector); fp64 the
// FP64 tensor pipe where present. Falls back to a slower pipe when the chip lacks one
// (bf16 on V100 → FP32) and uses the bf16/fp16 tensor peak for kUnknown.
double PeakFlops(const DeviceSpec& device, Dtype dtype, MathMode mode);

// The table for `plasmient peaks`: one row per device, TFLOPS and TB/s.
std::string FormatPeakTable();

}  // namespace plasmient::roofline
