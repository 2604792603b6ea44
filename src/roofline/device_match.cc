// Choosing a device-table row from a trace's deviceProperties or a user's --gpu.
#include <algorithm>
#include <cctype>
#include <string>

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
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
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

constexpr double kA100FortyGbLimit = 60e9;  // 40 GB boards report ~42.3e9 bytes, 80 GB ~85e9

Result<DeviceMatch> MatchA100(const std::string& n, std::string_view raw, std::int64_t memory_bytes) {
  const bool pcie = Has(n, "pcie");
  bool forty = Has(n, "40gb");
  std::string why;
  if (memory_bytes > 0 && !Has(n, "40gb") && !Has(n, "80gb")) {
    forty = static_cast<double>(memory_bytes) < kA100FortyGbLimit;
    why = fmt::format(", {:.1f} GB memory", static_cast<double>(memory_bytes) / 1e9);
  } else if (Has(n, "pg509") && !Has(n, "80gb")) {
    forty = Has(n, "pg509_200");  // PG509-200 is the 40 GB SXM4 board (traces report 42.3e9 bytes)
  }
  std::string key = fmt::format("a100_{}_{}", pcie ? "pcie" : "sxm", forty ? "40gb" : "80gb");
  std::string form = pcie              ? "PCIe in the name"
                     : Has(n, "pg509") ? "PG509 is an SXM4 board"
                                       : "SXM form factor assumed unless PCIe";
  return Found(key, fmt::format("'{}': A100, {}{}", raw, form, why));
}

Result<DeviceMatch> MatchH100(const std::string& n, std::string_view raw, int sms) {
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

// ROCm reports gfx90a (MI200) as compute capability 9.0 and gfx942 (MI300) as 9.4; each
// MI250/MI250X GCD is its own device with 104/110 CUs.
Result<DeviceMatch> MatchAmd(const std::string& n, std::string_view raw, int cus, int cc_major,
                             int cc_minor) {
  if (Has(n, "mi300x") || (cc_major == 9 && cc_minor == 4 && cus == 304)) {
    return Found("mi300x", fmt::format("'{}' ({} CUs, gfx 9.{}): MI300X", raw, cus, cc_minor));
  }
  const bool mi200 = Has(n, "mi250") || (cc_major == 9 && cc_minor == 0);
  if (mi200 && cus == 110)
    return Found("mi250x_gcd", fmt::format("'{}' with 110 CUs: one MI250X GCD (per-GCD peaks)", raw));
  if (mi200 && cus == 104)
    return Found("mi250_gcd", fmt::format("'{}' with 104 CUs: one MI250 GCD (per-GCD peaks)", raw));
  if (mi200 && cus == 220) return Found("mi250x", fmt::format("'{}' with 220 CUs: a whole MI250X OAM", raw));
  if (Has(n, "mi250x"))
    return Found("mi250x_gcd", fmt::format("'{}': MI250X, CU count {} unknown, one GCD assumed", raw, cus));
  if (Has(n, "mi250"))
    return Found("mi250_gcd", fmt::format("'{}': MI250, CU count {} unknown, one GCD assumed", raw, cus));
  return Fail("AMD device '{}' ({} CUs, gfx {}.{}) matches no row of the device table", raw, cus, cc_major,
              cc_minor);
}

// A device with no usable name: compute capability and SM count alone.
Result<DeviceMatch> MatchByCapability(std::string_view raw, int sms, int major, int minor) {
  struct Signature {
    int major, minor, sms;
    std::string_view key;
  };
  constexpr Signature kSignatures[] = {
      {9, 0, 132, "h100_sxm"}, {9, 0, 114, "h100_pcie"}, {8, 0, 108, "a100_sxm_80gb"},
      {7, 0, 80, "v100_sxm2"}, {8, 9, 142, "l40s"},      {8, 9, 58, "l4"},
      {8, 6, 72, "a10"},       {8, 6, 80, "a10g"},       {10, 0, 148, "b200_hgx"},
  };
  for (const Signature& s : kSignatures) {
    if (s.major == major && s.minor == minor && s.sms == sms) {
      return Found(s.key, fmt::format("'{}': compute capability {}.{} with {} SMs", raw, major, minor, sms));
    }
  }
  return Fail("device '{}' (compute capability {}.{}, {} SMs) matches no row of the device table", raw, major,
              minor, sms);
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

Result<DeviceMatch> MatchDevice(std::string_view name, int sm_count, int cc_major, int cc_minor,
                                std::int64_t total_memory_bytes) {
  const std::string n = Normalize(name);
  if (Has(n, "amd") || Has(n, "instinct") || Has(n, "radeon") || Has(n, "mi300") || Has(n, "mi250")) {
    return MatchAmd(n, name, sm_count, cc_major, cc_minor);
  }
  if (Has(n, "h100")) return MatchH100(n, name, sm_count);
  if (Has(n, "h200")) return Found("h200_sxm", fmt::format("'{}': H200", name));
  if (Has(n, "b200")) return Found("b200_hgx", fmt::format("'{}': B200 (HGX 1000 W figures)", name));
  if (Has(n, "a100")) return MatchA100(n, name, total_memory_bytes);
  if (Has(n, "a10g")) return Found("a10g", fmt::format("'{}': A10G (A10 figures stand in)", name));
  if (HasWord(n, "a10")) return Found("a10", fmt::format("'{}': A10", name));
  if (Has(n, "l40s")) return Found("l40s", fmt::format("'{}': L40S", name));
  if (HasWord(n, "l4")) return Found("l4", fmt::format("'{}': L4", name));
  if (Has(n, "v100")) {
    std::string_view form = Has(n, "sxm2")   ? "SXM2"
                            : Has(n, "dgxs") ? "DGXS (SXM2 module, same clocks)"
                                             : "no PCIe row: SXM2 peaks, about 12% above PCIe";
    return Found("v100_sxm2", fmt::format("'{}': V100, {}", name, form));
  }
  if (cc_major > 0 && sm_count > 0) return MatchByCapability(name, sm_count, cc_major, cc_minor);
  return Fail("device '{}' matches no row of the device table", name);
}

Result<DeviceMatch> FindDeviceByKey(std::string_view key_or_name) {
  const std::string k = Normalize(key_or_name);
  if (const DeviceSpec* d = ByKey(k)) return DeviceMatch{d, fmt::format("'{}': table key", key_or_name)};
  struct Alias {
    std::string_view alias, key;
  };
  constexpr Alias kAliases[] = {
      {"h100", "h100_sxm"},           {"h100_80gb", "h100_sxm"},     {"h200", "h200_sxm"},
      {"b200", "b200_hgx"},           {"a100", "a100_sxm_80gb"},     {"a100_80gb", "a100_sxm_80gb"},
      {"a100_40gb", "a100_sxm_40gb"}, {"a100_sxm", "a100_sxm_80gb"}, {"a100_pcie", "a100_pcie_80gb"},
      {"v100", "v100_sxm2"},          {"mi300", "mi300x"},           {"mi250", "mi250_gcd"},
  };
  for (const Alias& a : kAliases) {
    if (a.alias == k) return Found(a.key, fmt::format("'{}': alias of {}", key_or_name, a.key));
  }
  auto m = MatchDevice(key_or_name, 0, 0, 0);
  if (!m)
    return Fail("--gpu '{}' is neither a device-table key nor a known device name (see `plasmient peaks`)",
                key_or_name);
  return m;
}

}  // namespace plasmient::roofline
