// Choosing a device-table row from a trace's deviceProperties or a user's --gpu.
#include <algorithm>
#include <cctype>
#include <string>

#include "base/text.h"
#include "roofline/device_table.h"
#include "roofline/kernel_name.h"

namespace plasmient::roofline {
namespace {

const DeviceSpec* ByKey(std::string_view key) {
  for (const DeviceSpec& d : DeviceTable()) {
    if (d.key == key) return &d;
  }
  return nullptr;
}

std::string Normalize(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text) {
    char l = AsciiLower(c);
    s.push_back(l == '-' || l == ' ' ? '_' : l);
  }
  return s;
}

bool Has(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

// "l4" as a whole word, not inside "l40s".
bool HasWord(const std::string& s, std::string_view word) {
  for (std::size_t p = s.find(word); p != std::string::npos; p = s.find(word, p + 1)) {
    bool left = p == 0 || !std::isalnum(static_cast<unsigned char>(s[p - 1]));
    std::size_t end = p + word.size();
    bool right = end == s.size() || !std::isalnum(static_cast<unsigned char>(s[end]));
    if (left && right) return true;
  }
  return false;
}

Result<DeviceMatch> Found(std::string_view key, std::string reason) {
  const DeviceSpec* d = ByKey(key);
  if (d == nullptr) return Fail("device table has no row '{}'", key);
  return DeviceMatch{d, std::move(reason)};
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kA100FortyGbLimit = 60e9;  // 40 GB boards report ~42.3e9 bytes, 80 GB ~85e9

// "gfx 9.4, 304 CUs, 192 GiB, warp 64": the fields the match used, for the reason.
std::string Fields(const DeviceQuery& q) {
  std::string s = fmt::format("'{}'", q.name);
  if (q.cc_major > 0) s += fmt::format(", compute capability {}.{}", q.cc_major, q.cc_minor);
  if (q.sm_count > 0) s += fmt::format(", {} SMs/CUs", q.sm_count);
  if (q.memory_bytes > 0) s += fmt::format(", {:.0f} GiB", static_cast<double>(q.memory_bytes) / kGiB);
  if (q.warp_size > 0) s += fmt::format(", warp {}", q.warp_size);
  return s;
}

Result<DeviceMatch> MatchA100(const std::string& n, const DeviceQuery& q) {
  const bool pcie = Has(n, "pcie");
  bool forty = Has(n, "40gb");
  std::string why;
  if (q.memory_bytes > 0 && !Has(n, "40gb") && !Has(n, "80gb")) {
    forty = static_cast<double>(q.memory_bytes) < kA100FortyGbLimit;
    why = fmt::format(", {:.1f} GB memory", static_cast<double>(q.memory_bytes) / 1e9);
  } else if (Has(n, "pg509") && !Has(n, "80gb")) {
    forty = Has(n, "pg509_200");  // PG509-200 is the 40 GB SXM4 board (traces report 42.3e9 bytes)
  }
  std::string key = fmt::format("a100_{}_{}", pcie ? "pcie" : "sxm", forty ? "40gb" : "80gb");
  std::string form = pcie              ? "PCIe in the name"
                     : Has(n, "pg509") ? "PG509 is an SXM4 board"
                                       : "SXM form factor assumed unless PCIe";
  return Found(key, fmt::format("'{}': A100, {}{}", q.name, form, why));
}

Result<DeviceMatch> MatchH100(const std::string& n, const DeviceQuery& q) {
  const std::string_view raw = q.name;
  const int sms = q.sm_count;
  if (Has(n, "nvl")) return Found("h100_nvl", fmt::format("'{}': NVL in the name", raw));
  if (Has(n, "pcie")) return Found("h100_pcie", fmt::format("'{}': PCIe in the name", raw));
  if (Has(n, "sxm") || Has(n, "hbm3"))
    return Found("h100_sxm", fmt::format("'{}': SXM/HBM3 in the name", raw));
  if (sms == 114) return Found("h100_pcie", fmt::format("'{}' with 114 SMs: the PCIe card", raw));
  if (sms == 132 || sms == 0) {
    return Found("h100_sxm",
                 fmt::format("'{}' with {} SMs: SXM (NVL also has 132 SMs but says NVL)", raw, sms));
  }
  return Fail("'{}' with {} SMs matches no H100 variant (SXM/NVL 132, PCIe 114)", raw, sms);
}

enum class Vendor : std::uint8_t { kAny, kNvidia, kAmd };

// A device without a usable name: its compute capability, SM/CU count and memory size. Rows
// with the same capability and count are told apart by memory; `base` is the row taken when
// the memory size is not given.
struct Signature {
  Vendor vendor;
  int major, minor, sms;
  double min_gib, max_gib;  // 0 = open
  bool base;
  std::string_view key, what;
};

// clang-format off
constexpr Signature kSignatures[] = {
    // 80 GB and the 96 GB GH200 part; the NVL card (94 GB, lower clocks) says NVL in its name.
    {Vendor::kNvidia, 9,  0, 132, 0,   120, true,  "h100_sxm",      "H100 SXM-class (80/96 GB)"},
    {Vendor::kNvidia, 9,  0, 132, 120, 0,   false, "h200_sxm",      "H200 (141 GB)"},
    {Vendor::kNvidia, 9,  0, 114, 0,   0,   true,  "h100_pcie",     "H100 PCIe"},
    {Vendor::kNvidia, 9,  0, 78,  0,   0,   true,  "h20",           "H20"},
    {Vendor::kNvidia, 10, 0, 148, 0,   0,   true,  "b200_hgx",      "B200"},
    {Vendor::kNvidia, 8,  0, 108, 0,   56,  false, "a100_sxm_40gb", "A100 40 GB (SXM assumed)"},
    {Vendor::kNvidia, 8,  0, 108, 56,  0,   true,  "a100_sxm_80gb", "A100 80 GB (SXM assumed)"},
    {Vendor::kNvidia, 8,  9, 142, 0,   0,   true,  "l40s",          "L40S"},
    {Vendor::kNvidia, 8,  9, 58,  0,   0,   true,  "l4",            "L4"},
    {Vendor::kNvidia, 8,  6, 72,  0,   0,   true,  "a10",           "A10"},
    {Vendor::kNvidia, 8,  6, 80,  0,   0,   true,  "a10g",          "A10G"},
    {Vendor::kNvidia, 7,  0, 80,  0,   0,   true,  "v100_sxm2",     "V100"},
    {Vendor::kNvidia, 7,  5, 40,  0,   0,   true,  "t4",            "T4 (Turing, 40 SMs)"},
    {Vendor::kAmd,    9,  4, 304, 0,   224, true,  "mi300x",        "MI300X (gfx942, 192 GiB)"},
    {Vendor::kAmd,    9,  4, 304, 224, 0,   false, "mi325x",        "MI325X (gfx942, 256 GiB)"},
    {Vendor::kAmd,    9,  0, 110, 0,   0,   true,  "mi250x_gcd",    "one MI250X GCD (gfx90a; per-GCD peaks)"},
    {Vendor::kAmd,    9,  0, 104, 0,   0,   true,  "mi250_gcd",     "one MI250 GCD (gfx90a; per-GCD peaks; an MI210 has the same signature and peaks)"},
    {Vendor::kAmd,    9,  0, 220, 0,   0,   true,  "mi250x",        "a whole MI250X OAM (gfx90a)"},
};
// clang-format on

Result<DeviceMatch> MatchBySignature(const DeviceQuery& q, Vendor vendor) {
  const double gib = static_cast<double>(q.memory_bytes) / kGiB;
  for (const Signature& s : kSignatures) {
    if (vendor != Vendor::kAny && s.vendor != vendor) continue;
    if (s.major != q.cc_major || s.minor != q.cc_minor || s.sms != q.sm_count) continue;
    const bool fits = q.memory_bytes > 0 ? (gib >= s.min_gib && (s.max_gib == 0 || gib < s.max_gib)) : s.base;
    if (fits) return Found(s.key, fmt::format("{}: {}", Fields(q), s.what));
  }
  return Fail("device {} matches no row of the device table", Fields(q));
}

// ROCm reports gfx90a (MI200) as compute capability 9.0 and gfx942 (MI300) as 9.4; each
// MI250/MI250X GCD is its own device with 104/110 CUs.
Result<DeviceMatch> MatchAmd(const std::string& n, const DeviceQuery& q) {
  if (Has(n, "mi325x")) return Found("mi325x", fmt::format("'{}': MI325X", q.name));
  if (Has(n, "mi300x")) return Found("mi300x", fmt::format("'{}': MI300X", q.name));
  // An MI210 has the signature of one MI250 GCD (gfx90a, 104 CUs, 64 GB): only its name tells.
  if (Has(n, "mi210")) return Found("mi210", fmt::format("'{}': MI210", q.name));
  auto by_fields = MatchBySignature(q, Vendor::kAmd);
  if (by_fields) return by_fields;
  const int cus = q.sm_count;
  if (Has(n, "mi250x"))
    return Found("mi250x_gcd",
                 fmt::format("'{}': MI250X, CU count {} unknown, one GCD assumed", q.name, cus));
  if (Has(n, "mi250"))
    return Found("mi250_gcd", fmt::format("'{}': MI250, CU count {} unknown, one GCD assumed", q.name, cus));
  return Fail("AMD device {} matches no row of the device table", Fields(q));
}

}  // namespace

MathMode ChooseMathMode(Fp32MathOption option, bool is_convolution, std::string_view kernel_name) {
  if (!kernel_name.empty() && IsTf32KernelName(kernel_name)) return MathMode::kTf32;
  switch (option) {
    case Fp32MathOption::kIeee:
      return MathMode::kIeeeFp32;
    case Fp32MathOption::kTf32:
      return MathMode::kTf32;
    case Fp32MathOption::kAuto:
      break;
  }
  return is_convolution ? MathMode::kTf32 : MathMode::kIeeeFp32;
}

Result<DeviceMatch> MatchDevice(const DeviceQuery& q) {
  const std::string n = Normalize(q.name);
  const bool amd_name = Has(n, "amd") || Has(n, "instinct") || Has(n, "radeon") || Has(n, "mi300") ||
                        Has(n, "mi325") || Has(n, "mi250") || Has(n, "mi210") || Has(n, "gfx9");
  // Warp size settles the vendor when the name does not: 64 on AMD CDNA, 32 on NVIDIA.
  if (amd_name || (n.empty() && q.warp_size == 64)) return MatchAmd(n, q);
  // Grace Hopper before "h200", which its name contains: its GPU is an H100 with 96 GB HBM3 or
  // 144 GB HBM3e (the name's "480GB" is the CPU's memory).
  if (Has(n, "gh200")) {
    const bool big = q.memory_bytes > 0 && static_cast<double>(q.memory_bytes) / kGiB > 120;
    return Found(big ? "gh200_144gb" : "gh200_96gb",
                 fmt::format("'{}': GH200, {}", q.name,
                             q.memory_bytes > 0 ? fmt::format("{:.1f} GiB of HBM",
                                                              static_cast<double>(q.memory_bytes) / kGiB)
                                                : std::string("96 GB HBM3 assumed")));
  }
  if (Has(n, "h800")) {
    if (Has(n, "pcie")) return Fail("'{}': H800 PCIe is not in the device table (use --gpu)", q.name);
    return Found("h800_sxm", fmt::format("'{}': H800 (SXM)", q.name));
  }
  if (Has(n, "h100")) return MatchH100(n, q);
  if (Has(n, "h200")) return Found("h200_sxm", fmt::format("'{}': H200", q.name));
  if (HasWord(n, "h20")) return Found("h20", fmt::format("'{}': H20", q.name));
  if (Has(n, "gb200")) return Found("gb200", fmt::format("'{}': GB200 (per-GPU, 1200 W figures)", q.name));
  if (Has(n, "b200")) return Found("b200_hgx", fmt::format("'{}': B200 (HGX 1000 W figures)", q.name));
  if (Has(n, "a100")) return MatchA100(n, q);
  if (Has(n, "a10g")) return Found("a10g", fmt::format("'{}': A10G (A10 figures stand in)", q.name));
  if (HasWord(n, "a10")) return Found("a10", fmt::format("'{}': A10", q.name));
  if (Has(n, "l40s")) return Found("l40s", fmt::format("'{}': L40S", q.name));
  if (HasWord(n, "l4")) return Found("l4", fmt::format("'{}': L4", q.name));
  if (HasWord(n, "t4")) return Found("t4", fmt::format("'{}': T4", q.name));
  if (Has(n, "v100")) {
    std::string_view form = Has(n, "sxm2")   ? "SXM2"
                            : Has(n, "dgxs") ? "DGXS (SXM2 module, same clocks)"
                                             : "no PCIe row: SXM2 peaks, about 12% above PCIe";
    return Found("v100_sxm2", fmt::format("'{}': V100, {}", q.name, form));
  }
  if (q.cc_major > 0 && q.sm_count > 0) {
    return MatchBySignature(q, q.warp_size == 32 ? Vendor::kNvidia : Vendor::kAny);
  }
  return Fail("device {} matches no row of the device table", Fields(q));
}

const DeviceSpec* DeviceFromKernelNames(std::span<const std::string_view> kernel_names) {
  // Architecture tags that cuBLAS/CUTLASS/cuDNN and hipBLASLt put in kernel names, newest
  // first: a kernel built for an older architecture also runs on a newer one, so the newest
  // tag seen bounds the device. Each names a family; its most common datacenter part stands in.
  constexpr std::string_view kTags[][2] = {
      {"sm100", "b200_hgx"}, {"sm90", "h100_sxm"},    {"sm80", "a100_sxm_80gb"}, {"ampere_", "a100_sxm_80gb"},
      {"sm70", "v100_sxm2"}, {"volta_", "v100_sxm2"}, {"gfx942", "mi300x"},      {"gfx90a", "mi250x_gcd"},
  };
  std::size_t best = std::size(kTags);
  for (std::string_view name : kernel_names) {
    for (std::size_t i = 0; i < best; ++i) {
      if (name.find(kTags[i][0]) != std::string_view::npos) {
        best = i;
        break;
      }
    }
  }
  return best < std::size(kTags) ? ByKey(kTags[best][1]) : nullptr;
}

Result<DeviceMatch> FindDeviceByKey(std::string_view key_or_name) {
  const std::string k = Normalize(key_or_name);
  if (const DeviceSpec* d = ByKey(k)) return DeviceMatch{d, fmt::format("'{}': table key", key_or_name)};
  struct Alias {
    std::string_view alias, key;
  };
  constexpr Alias kAliases[] = {
      {"h100", "h100_sxm"},
      {"h100_80gb", "h100_sxm"},
      {"h200", "h200_sxm"},
      {"b200", "b200_hgx"},
      {"a100", "a100_sxm_80gb"},
      {"a100_80gb", "a100_sxm_80gb"},
      {"a100_40gb", "a100_sxm_40gb"},
      {"a100_sxm", "a100_sxm_80gb"},
      {"a100_pcie", "a100_pcie_80gb"},
      {"v100", "v100_sxm2"},
      {"mi300", "mi300x"},
      {"mi250", "mi250_gcd"},
      {"mi210", "mi210"},
      {"mi325", "mi325x"},
      {"gb200", "gb200"},
  };
  for (const Alias& a : kAliases) {
    if (a.alias == k) return Found(a.key, fmt::format("'{}': alias of {}", key_or_name, a.key));
  }
  auto m = MatchDevice(DeviceQuery{.name = key_or_name});
  if (!m)
    return Fail("--gpu '{}' is neither a device-table key nor a known device name (see `plasmient peaks`)",
                key_or_name);
  return m;
}

}  // namespace plasmient::roofline
