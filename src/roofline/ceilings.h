// Measured ceilings (docs/counters.md, "Measured ceilings"): the dense GEMM FLOP/s per dtype and
// the memory bandwidth a device achieves in practice, measured on the node (scripts/gpu-check.sh's
// ceiling stage writes them) and stored beside the datasheet peaks as a plasmient.ceilings/1 file.
// A verdict judged against them (`analyze --ceiling measured --ceilings FILE`) says so.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "roofline/device_table.h"

namespace plasmient::roofline {

inline constexpr std::string_view kCeilingsSchema = "plasmient.ceilings/1";

// Which ceiling a verdict's achieved fraction is over.
enum class CeilingKind : std::uint8_t { kDatasheet, kMeasured };
Result<CeilingKind> ParseCeilingKind(std::string_view text);  // "datasheet" | "measured"
std::string_view CeilingKindName(CeilingKind kind);

struct DeviceCeilings {
  std::string device;  // the device table key the measurement was made on ("h100_sxm")
  std::string name;    // as the driver named it
  std::string measured_at, source;
  std::array<double, kPeakKinds> flops_per_s{};  // 0 = not measured (the datasheet peak stays)
  double memory_bandwidth_bytes_per_s = 0;       // 0 = not measured
  double sm_clock_mhz = 0;                       // the clock the GEMMs ran at, 0 = not read
};

struct Ceilings {
  std::string path;  // where they were read from, for the report
  std::vector<DeviceCeilings> devices;
  const DeviceCeilings* Find(std::string_view device_key) const;
};

// Parses a plasmient.ceilings/1 document. Fails on another schema, a device that is not a device
// table key, a pipe name PeakKindName does not give, or a figure that is not a positive number.
Result<Ceilings> ParseCeilings(std::string_view json, std::string path = "");
Result<Ceilings> ReadCeilings(const std::string& path);
std::string CeilingsJson(const Ceilings& c);

// The datasheet row with each measured figure in place of its peak; the rest as the datasheet
// gives it. Its string_views point into `row` and `measured`, which must outlive it.
DeviceSpec WithMeasuredCeilings(const DeviceSpec& row, const DeviceCeilings& measured);

}  // namespace plasmient::roofline
