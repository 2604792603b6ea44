#include "roofline/device_table.h"

#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

namespace plasmient::roofline {
namespace {

constexpr double kT = 1e12;  // TFLOPS, TB/s
constexpr double kG = 1e9;   // GB, GB/s

struct Row {
  std::string_view key, name;
  double fp64, fp64_tensor, fp32, fp32_matrix, tf32, bf16, fp16, fp8, int8, fp4;  // TFLOPS / TOPS, dense
  double bandwidth_tbps, memory_gb;
  int sms;
  double ghz, gpu_link_gbps, host_link_gbps, price;
  bool verified;
};

// Figures: docs/devices.md (sources there). 0 = no such pipe or not given.
// clang-format off
constexpr Row kRows[] = {
  //  key               name                                 fp64   fp64t  fp32   fp32m  tf32   bf16    fp16    fp8     int8    fp4    TB/s   GB   SMs  GHz    link  host $/h   verified
  {"h100_sxm",       "NVIDIA H100 SXM 80GB",              34,    67,    67,    0,     494.7, 989.4,  989.4,  1978.9, 1978.9, 0,     3.35,  80,  132, 1.98,  900,  128, 4.00, true},
  {"h100_pcie",      "NVIDIA H100 PCIe 80GB",             26,    51,    51,    0,     378,   756.5,  756.5,  1513,   1513,   0,     2.0,   80,  114, 0,     600,  128, 3.00, true},
  {"h100_nvl",       "NVIDIA H100 NVL 94GB",              30,    60,    60,    0,     417.5, 835.5,  835.5,  1670.5, 1670.5, 0,     3.9,   94,  132, 0,     600,  128, 3.50, false},
  {"h200_sxm",       "NVIDIA H200 SXM 141GB",             34,    67,    67,    0,     494.7, 989.4,  989.4,  1978.9, 1978.9, 0,     4.8,   141, 132, 1.98,  900,  128, 5.00, true},
  {"h20",            "NVIDIA H20 96GB",                   1,     1,     44,    0,     74,    148,    148,    296,    296,    0,     4.0,   96,  78,  0,     900,  128, 1.50, false},
  {"h800_sxm",       "NVIDIA H800 SXM 80GB",              1,     1,     67,    0,     494.7, 989.4,  989.4,  1978.9, 1978.9, 0,     3.35,  80,  132, 1.98,  400,  128, 3.50, false},
  {"gh200_96gb",     "NVIDIA GH200 (96 GB HBM3)",         34,    67,    67,    0,     494.7, 989.4,  989.4,  1978.9, 1978.9, 0,     4.0,   96,  132, 1.98,  900,  900, 5.00, false},
  {"gh200_144gb",    "NVIDIA GH200 (144 GB HBM3e)",       34,    67,    67,    0,     494.7, 989.4,  989.4,  1978.9, 1978.9, 0,     4.9,   144, 132, 1.98,  900,  900, 5.50, false},
  {"b200_hgx",       "NVIDIA B200 (HGX, 1000 W)",         40,    40,    80,    0,     1100,  2250,   2250,   4500,   4500,   9000,  8.0,   180, 148, 0,     1800, 0,   7.00, false},
  {"gb200",          "NVIDIA GB200 (per GPU, 1200 W)",    45,    45,    90,    0,     1250,  2500,   2500,   5000,   5000,   10000, 8.0,   186, 0,   0,     1800, 0,   8.00, false},
  {"a100_sxm_80gb",  "NVIDIA A100 SXM4 80GB",             9.7,   19.5,  19.5,  0,     156,   312,    312,    0,      624,    0,     2.039, 80,  108, 1.41,  600,  64,  2.50, true},
  {"a100_sxm_40gb",  "NVIDIA A100 SXM4 40GB",             9.7,   19.5,  19.5,  0,     156,   312,    312,    0,      624,    0,     1.555, 40,  108, 1.41,  600,  64,  2.00, false},
  {"a100_pcie_80gb", "NVIDIA A100 PCIe 80GB",             9.7,   19.5,  19.5,  0,     156,   312,    312,    0,      624,    0,     1.935, 80,  108, 1.41,  600,  64,  2.00, true},
  {"a100_pcie_40gb", "NVIDIA A100 PCIe 40GB",             9.7,   19.5,  19.5,  0,     156,   312,    312,    0,      624,    0,     1.555, 40,  108, 1.41,  600,  64,  1.50, false},
  {"l40s",           "NVIDIA L40S",                       1.43,  0,     91.6,  0,     183,   362.05, 362.05, 733,    733,    0,     0.864, 48,  142, 2.52,  0,    64,  1.50, true},
  {"l4",             "NVIDIA L4",                         0.49,  0,     30.3,  0,     60,    121,    121,    242.5,  242.5,  0,     0.3,   24,  58,  2.04,  0,    64,  0.80, false},
  {"a10g",           "NVIDIA A10G (A10 figures)",         0.98,  0,     31.2,  0,     62.5,  125,    125,    0,      250,    0,     0.6,   24,  80,  0,     0,    64,  1.00, false},
  {"a10",            "NVIDIA A10",                        0.98,  0,     31.2,  0,     62.5,  125,    125,    0,      250,    0,     0.6,   24,  72,  1.695, 0,    64,  1.00, false},
  {"t4",             "NVIDIA T4",                         0.25,  0,     8.1,   0,     0,     0,      65,     0,      130,    0,     0.32,  16,  40,  1.59,  0,    32,  0.35, false},
  {"v100_sxm2",      "NVIDIA V100 SXM2",                  7.8,   0,     15.7,  0,     0,     0,      125,    0,      0,      0,     0.9,   32,  80,  1.53,  300,  32,  1.50, true},
  {"mi300x",         "AMD Instinct MI300X",               81.7,  163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 0,     5.3,   192, 304, 2.1,   896,  128, 3.50, true},
  {"mi325x",         "AMD Instinct MI325X",               81.7,  163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 0,     6.0,   256, 304, 2.1,   896,  128, 4.00, false},
  {"mi250x",         "AMD Instinct MI250X (OAM, 2 GCDs)", 47.9,  95.7,  47.9,  95.7,  0,     383,    383,    0,      383,    0,     3.2,   128, 220, 1.7,   800,  64,  2.00, true},
  {"mi250x_gcd",     "AMD Instinct MI250X, one GCD",      23.95, 47.85, 23.95, 47.85, 0,     191.5,  191.5,  0,      191.5,  0,     1.6,   64,  110, 1.7,   400,  64,  1.00, false},
  {"mi250_gcd",      "AMD Instinct MI250, one GCD",       22.63, 45.26, 22.63, 45.26, 0,     181.04, 181.04, 0,      181.04, 0,     1.6,   64,  104, 1.7,   400,  64,  0.90, false},
  {"mi210",          "AMD Instinct MI210",                22.6,  45.3,  22.6,  45.3,  0,     181.0,  181.0,  0,      181.0,  0,     1.6,   64,  104, 1.7,   300,  64,  1.00, false},
};
// clang-format on

constexpr std::size_t kRowCount = sizeof(kRows) / sizeof(kRows[0]);

std::array<DeviceSpec, kRowCount> BuildTable() {
  std::array<DeviceSpec, kRowCount> table{};
  for (std::size_t i = 0; i < kRowCount; ++i) {
    const Row& r = kRows[i];
    DeviceSpec& d = table[i];
    d.key = r.key;
    d.name = r.name;
    d.peak_flops_per_s = {r.fp64 * kT, r.fp64_tensor * kT, r.fp32 * kT, r.fp32_matrix * kT, r.tf32 * kT,
                          r.bf16 * kT, r.fp16 * kT,        r.fp8 * kT,  r.int8 * kT,        r.fp4 * kT};
    d.memory_bandwidth_bytes_per_s = r.bandwidth_tbps * kT;
    d.memory_bytes = r.memory_gb * kG;
    d.sm_count = r.sms;
    d.boost_ghz = r.ghz;
    d.gpu_link_bytes_per_s = r.gpu_link_gbps * kG;
    d.host_link_bytes_per_s = r.host_link_gbps * kG;
    d.price_per_gpu_hour = r.price;
    d.verified = r.verified;
  }
  return table;
}

const std::array<DeviceSpec, kRowCount>& Table() {
  static const std::array<DeviceSpec, kRowCount> table = BuildTable();
  return table;
}

}  // namespace

std::span<const DeviceSpec> DeviceTable() { return Table(); }

std::string_view PeakKindName(PeakKind kind) {
  switch (kind) {
    case PeakKind::kFp64:
      return "fp64";
    case PeakKind::kFp64Tensor:
      return "fp64_tensor";
    case PeakKind::kFp32:
      return "fp32";
    case PeakKind::kFp32Matrix:
      return "fp32_matrix";
    case PeakKind::kTf32:
      return "tf32";
    case PeakKind::kBf16:
      return "bf16";
    case PeakKind::kFp16:
      return "fp16";
    case PeakKind::kFp8:
      return "fp8";
    case PeakKind::kInt8:
      return "int8";
    case PeakKind::kFp4:
      return "fp4";
    case PeakKind::kCount:
      break;
  }
  return "?";
}

PeakKind PeakPipe(const DeviceSpec& d, Dtype dtype, MathMode mode) {
  const PeakKind fp32 =
      d.Peak(PeakKind::kFp32Matrix) > d.Peak(PeakKind::kFp32) ? PeakKind::kFp32Matrix : PeakKind::kFp32;
  auto first = [&d, fp32](std::initializer_list<PeakKind> pipes) {
    for (PeakKind p : pipes) {
      if (d.Peak(p) > 0) return p;
    }
    return fp32;
  };
  switch (dtype) {
    case Dtype::kFp64:
    case Dtype::kComplex128:
      return first({PeakKind::kFp64Tensor, PeakKind::kFp64});
    case Dtype::kFp32:
    case Dtype::kComplex64:
      return mode == MathMode::kTf32 ? first({PeakKind::kTf32}) : fp32;
    case Dtype::kTf32:
      return first({PeakKind::kTf32});
    case Dtype::kBf16:
      return first({PeakKind::kBf16});
    case Dtype::kFp16:
      return first({PeakKind::kFp16});
    case Dtype::kFp8:
      return first({PeakKind::kFp8, PeakKind::kBf16, PeakKind::kFp16});
    case Dtype::kFp4:
      return first({PeakKind::kFp4, PeakKind::kFp8, PeakKind::kBf16, PeakKind::kFp16});
    case Dtype::kInt8:
    case Dtype::kUint8:
      return first({PeakKind::kInt8});
    case Dtype::kInt16:
    case Dtype::kInt32:
    case Dtype::kInt64:
    case Dtype::kBool:
      return PeakKind::kFp32;  // integer ALU work runs at about the FP32 vector rate
    case Dtype::kUnknown:
      return first({PeakKind::kBf16, PeakKind::kFp16});
  }
  return fp32;
}

double PeakFlops(const DeviceSpec& d, Dtype dtype, MathMode mode) { return d.Peak(PeakPipe(d, dtype, mode)); }

std::string PeakLabel(const DeviceSpec& d, Dtype dtype, MathMode mode) {
  const PeakKind pipe = PeakPipe(d, dtype, mode);
  if (dtype == Dtype::kUnknown) return std::string(PeakKindName(pipe));
  bool own = true;  // fp32 on any FP32 path; other integers on the FP32 ALUs
  switch (dtype) {
    case Dtype::kFp64:
    case Dtype::kComplex128:
      own = pipe == PeakKind::kFp64 || pipe == PeakKind::kFp64Tensor;
      break;
    case Dtype::kTf32:
      own = pipe == PeakKind::kTf32;
      break;
    case Dtype::kBf16:
      own = pipe == PeakKind::kBf16;
      break;
    case Dtype::kFp16:
      own = pipe == PeakKind::kFp16;
      break;
    case Dtype::kFp8:
      own = pipe == PeakKind::kFp8;
      break;
    case Dtype::kFp4:
      own = pipe == PeakKind::kFp4;
      break;
    case Dtype::kInt8:
    case Dtype::kUint8:
      own = pipe == PeakKind::kInt8;
      break;
    default:
      break;
  }
  if (own) return std::string(DtypeName(dtype));
  return fmt::format("{} on {} (no {} pipe)", DtypeName(dtype), PeakKindName(pipe), DtypeName(dtype));
}

std::string FormatPeakTable() {
  std::string out = fmt::format(
      "{:<15} {:<34} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>5} {:>6} {:>6}\n",
      "key", "device", "fp64", "fp64tc", "fp32", "fp32mx", "tf32", "bf16", "fp16", "fp8", "int8", "fp4",
      "TB/s", "SMs", "link", "$/h");
  for (const DeviceSpec& d : DeviceTable()) {
    auto t = [&](PeakKind k) {
      double v = d.Peak(k);
      return v > 0 ? fmt::format("{:.6g}", v / kT) : std::string("-");
    };
    out += fmt::format(
        "{:<15} {:<34} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6.3f} {:>5} {:>6} "
        "{:>6.2f}{}\n",
        d.key, d.name, t(PeakKind::kFp64), t(PeakKind::kFp64Tensor), t(PeakKind::kFp32),
        t(PeakKind::kFp32Matrix), t(PeakKind::kTf32), t(PeakKind::kBf16), t(PeakKind::kFp16),
        t(PeakKind::kFp8), t(PeakKind::kInt8), t(PeakKind::kFp4), d.memory_bandwidth_bytes_per_s / kT,
        d.sm_count > 0 ? fmt::format("{}", d.sm_count) : std::string("-"),
        d.gpu_link_bytes_per_s > 0 ? fmt::format("{:.0f}", d.gpu_link_bytes_per_s / kG) : std::string("-"),
        d.price_per_gpu_hour, d.verified ? "" : " *");
  }
  out +=
      "TFLOPS (INT8: TOPS), dense; link: GPU-GPU GB/s bidirectional; $/h: assumed on-demand price; * = some "
      "figures unverified or derived\n";
  return out;
}

}  // namespace plasmient::roofline
