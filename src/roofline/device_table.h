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
  kFp4,         // FP4 tensor (Blackwell NVFP4/MXFP4); 0 before Blackwell
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

// What a trace says about a GPU (Kineto deviceProperties, Nsight's TARGET_INFO_GPU, the
// agent's CUPTI device record). 0 / empty = not given.
struct DeviceQuery {
  std::string_view name;           // "NVIDIA A100-SXM4-80GB", "AMD Radeon Graphics", "" ...
  int sm_count = 0;                // SMs (NVIDIA) or CUs (AMD)
  int cc_major = 0, cc_minor = 0;  // compute capability; ROCm reports gfx942 as 9.4, gfx90a as 9.0
  std::int64_t memory_bytes = 0;
  int warp_size = 0;  // 32 on NVIDIA, 64 on AMD CDNA
};

// The name first, then compute capability, SM/CU count, memory size and warp size
// (docs/devices.md, "Matching a trace's device"). An error names the device when no row fits.
Result<DeviceMatch> MatchDevice(const DeviceQuery& query);
// A device named only by its kernels (no deviceProperties): the newest architecture tag in
// the kernel names ("sm90_xmma…", "ampere_sgemm…", "volta_…", "…gfx942…"); nullptr when none
// says. The row is the family's common datacenter part, so the choice stays an assumption.
const DeviceSpec* DeviceFromKernelNames(std::span<const std::string_view> kernel_names);
// A user's --gpu: a table key ("h100_sxm"), an alias ("H100", "a100"), or a device name.
Result<DeviceMatch> FindDeviceByKey(std::string_view key_or_name);

// The pipe that runs work of this dtype on this device: bf16/fp16/fp8/fp4/int8 tensor pipes;
// fp32 per math mode (TF32 tensor, else FP32 matrix where the chip has one, else FP32
// vector); fp64 the FP64 tensor pipe where present. A chip without the dtype's pipe runs it
// on the next one that exists (bf16 on V100: FP32 CUDA cores; fp8 on A100: the BF16 tensor
// pipe after an upcast; fp4 before Blackwell: FP8, else BF16). kUnknown: the BF16 (else FP16)
// tensor pipe.
PeakKind PeakPipe(const DeviceSpec& device, Dtype dtype, MathMode mode);
// The peak of that pipe.
double PeakFlops(const DeviceSpec& device, Dtype dtype, MathMode mode);
// "bf16", or "bf16 on fp32 (no bf16 tensor path)" where the device lacks the dtype's own pipe.
std::string PeakLabel(const DeviceSpec& device, Dtype dtype, MathMode mode);

// The table for `plasmient peaks`: one row per device, TFLOPS and TB/s.
std::string FormatPeakTable();

}  // namespace plasmient::roofline
