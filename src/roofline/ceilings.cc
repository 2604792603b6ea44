#include "roofline/ceilings.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <simdjson.h>

namespace plasmient::roofline {
namespace {

std::optional<PeakKind> PeakKindFromName(std::string_view name) {
  for (int k = 0; k < kPeakKinds; ++k) {
    if (PeakKindName(static_cast<PeakKind>(k)) == name) return static_cast<PeakKind>(k);
  }
  return std::nullopt;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

Result<double> Positive(simdjson::dom::element e, std::string_view what) {
  double v = 0;
  if (e.is_int64()) {
    v = static_cast<double>(e.get_int64().value());
  } else if (e.is_uint64()) {
    v = static_cast<double>(e.get_uint64().value());
  } else if (e.get_double().get(v)) {
    return Fail("ceilings: {} is not a number", what);
  }
  if (!(v > 0) || !std::isfinite(v)) return Fail("ceilings: {} must be a positive number", what);
  return v;
}

std::string Text(simdjson::dom::object o, std::string_view key) {
  std::string_view v;
  return o[key].get(v) ? std::string() : std::string(v);
}

}  // namespace

Result<CeilingKind> ParseCeilingKind(std::string_view text) {
  if (text == "datasheet") return CeilingKind::kDatasheet;
  if (text == "measured") return CeilingKind::kMeasured;
  return Fail("--ceiling {}: datasheet or measured", text);
}

std::string_view CeilingKindName(CeilingKind kind) {
  return kind == CeilingKind::kMeasured ? "measured" : "datasheet";
}

const DeviceCeilings* Ceilings::Find(std::string_view device_key) const {
  for (const auto& d : devices) {
    if (d.device == device_key) return &d;
  }
  return nullptr;
}

Result<Ceilings> ParseCeilings(std::string_view json, std::string path) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object root;
  if (parser.parse(padded).get(root)) return Fail("ceilings {}: not a JSON object", path);
  std::string_view schema;
  if (root["schema"].get(schema) || schema != kCeilingsSchema)
    return Fail("ceilings {}: schema is not {}", path, kCeilingsSchema);
  simdjson::dom::array devices;
  if (root["devices"].get(devices)) return Fail("ceilings {}: no \"devices\" array", path);
  Ceilings c;
  c.path = std::move(path);
  for (simdjson::dom::element e : devices) {
    simdjson::dom::object o;
    if (e.get(o)) return Fail("ceilings {}: a device that is not an object", c.path);
    DeviceCeilings d;
    d.device = Text(o, "device");
    if (!FindDeviceByKey(d.device) || d.device.empty())
      return Fail("ceilings {}: device '{}' is not a device table key (`plasmient peaks`)", c.path, d.device);
    if (auto found = FindDeviceByKey(d.device); found && found->spec->key != d.device)
      return Fail("ceilings {}: device '{}' is an alias; give its key '{}'", c.path, d.device,
                  found->spec->key);
    d.name = Text(o, "name");
    d.measured_at = Text(o, "measured_at");
    d.source = Text(o, "source");
    simdjson::dom::object gemm;
    if (!o["gemm_flops_per_s"].get(gemm)) {
      for (auto field : gemm) {
        auto kind = PeakKindFromName(field.key);
        if (!kind)
          return Fail("ceilings {}: no pipe '{}' (fp32, tf32, bf16, fp16, fp8, ...)", c.path, field.key);
        auto v = Positive(field.value, fmt::format("{} {}", d.device, field.key));
        if (!v) return std::unexpected(v.error());
        d.flops_per_s[static_cast<std::size_t>(*kind)] = *v;
      }
    }
    if (simdjson::dom::element bw; !o["memory_bandwidth_bytes_per_s"].get(bw)) {
      auto v = Positive(bw, d.device + " memory_bandwidth_bytes_per_s");
      if (!v) return std::unexpected(v.error());
      d.memory_bandwidth_bytes_per_s = *v;
    }
    if (simdjson::dom::element clock; !o["sm_clock_mhz"].get(clock)) {
      auto v = Positive(clock, d.device + " sm_clock_mhz");
      if (!v) return std::unexpected(v.error());
      d.sm_clock_mhz = *v;
    }
    if (c.Find(d.device) != nullptr) return Fail("ceilings {}: device {} twice", c.path, d.device);
    c.devices.push_back(std::move(d));
  }
  return c;
}

Result<Ceilings> ReadCeilings(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail("ceilings {}: cannot read", path);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseCeilings(text.str(), path);
}

std::string CeilingsJson(const Ceilings& c) {
  std::string out = fmt::format("{{\n  \"schema\": \"{}\",\n  \"devices\": [", kCeilingsSchema);
  for (std::size_t i = 0; i < c.devices.size(); ++i) {
    const DeviceCeilings& d = c.devices[i];
    out += fmt::format("{}\n    {{\"device\": {}, \"name\": {}, \"measured_at\": {}, \"source\": {},",
                       i ? "," : "", JsonString(d.device), JsonString(d.name), JsonString(d.measured_at),
                       JsonString(d.source));
    out += "\n     \"gemm_flops_per_s\": {";
    bool first = true;
    for (int k = 0; k < kPeakKinds; ++k) {
      if (d.flops_per_s[static_cast<std::size_t>(k)] <= 0) continue;
      out += fmt::format("{}\"{}\": {:.6g}", first ? "" : ", ", PeakKindName(static_cast<PeakKind>(k)),
                         d.flops_per_s[static_cast<std::size_t>(k)]);
      first = false;
    }
    out += "}";
    if (d.memory_bandwidth_bytes_per_s > 0)
      out += fmt::format(",\n     \"memory_bandwidth_bytes_per_s\": {:.6g}", d.memory_bandwidth_bytes_per_s);
    if (d.sm_clock_mhz > 0) out += fmt::format(",\n     \"sm_clock_mhz\": {:.6g}", d.sm_clock_mhz);
    out += "}";
  }
  out += "\n  ]\n}\n";
  return out;
}

DeviceSpec WithMeasuredCeilings(const DeviceSpec& row, const DeviceCeilings& measured) {
  DeviceSpec d = row;
  for (std::size_t k = 0; k < d.peak_flops_per_s.size(); ++k) {
    if (measured.flops_per_s[k] > 0) d.peak_flops_per_s[k] = measured.flops_per_s[k];
  }
  if (measured.memory_bandwidth_bytes_per_s > 0)
    d.memory_bandwidth_bytes_per_s = measured.memory_bandwidth_bytes_per_s;
  return d;
}

}  // namespace plasmient::roofline
