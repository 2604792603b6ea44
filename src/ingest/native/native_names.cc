#include "ingest/native/native_names.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "base/text.h"

namespace plasmient::ingest::native {
namespace {

std::string_view CopyKindName(std::uint8_t kind) {
  switch (kind) {
    case 1:
      return "HtoD";
    case 2:
      return "DtoH";
    case 3:
      return "HtoA";
    case 4:
      return "AtoH";
    case 5:
      return "AtoA";
    case 6:
      return "AtoD";
    case 7:
      return "DtoA";
    case 8:
      return "DtoD";
    case 9:
      return "HtoH";
    case 10:
      return "PtoP";
    default:
      return "Unknown";
  }
}

std::string_view MemoryKindName(std::uint16_t kind) {
  switch (kind) {
    case 1:
      return "Pageable";
    case 2:
      return "Pinned";
    case 3:
      return "Device";
    case 4:
      return "Array";
    case 5:
      return "Managed";
    case 6:
      return "Device Static";
    case 7:
      return "Managed Static";
    default:
      return "Unknown";
  }
}

}  // namespace

std::string MemcpyName(std::uint8_t copy_kind, std::uint8_t src_kind, std::uint8_t dst_kind) {
  return fmt::format("Memcpy {} ({} -> {})", CopyKindName(copy_kind), MemoryKindName(src_kind),
                     MemoryKindName(dst_kind));
}

std::string MemsetName(std::uint16_t memory_kind) {
  return fmt::format("Memset ({})", MemoryKindName(memory_kind));
}

std::string_view StripApiVersion(std::string_view name) {
  std::size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 >= name.size()) return name;
  bool digits = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v) + 2, name.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  return digits ? name.substr(0, v) : name;
}

std::string Demangle(std::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  std::string text(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(text.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : text;
}

std::string_view CudaDtypeName(std::int32_t cuda_dtype) {
  switch (cuda_dtype) {
    case 0:
      return "float";
    case 1:
      return "double";
    case 2:
      return "c10::Half";
    case 3:
      return "signed char";
    case 10:
      return "int";
    case 14:
      return "c10::BFloat16";
    case 28:
      return "c10::Float8_e4m3fn";
    case 29:
      return "c10::Float8_e5m2";
    default:
      return "unknown";
  }
}

std::string_view NcclDtypeName(std::string_view nccl) {
  static constexpr std::pair<std::string_view, std::string_view> kMap[] = {
      {"ncclInt8", "Char"},
      {"ncclChar", "Char"},
      {"ncclUint8", "Byte"},
      {"ncclInt32", "Int"},
      {"ncclInt", "Int"},
      {"ncclUint32", "UInt32"},
      {"ncclInt64", "Long"},
      {"ncclUint64", "UInt64"},
      {"ncclFloat16", "Half"},
      {"ncclHalf", "Half"},
      {"ncclFloat32", "Float"},
      {"ncclFloat", "Float"},
      {"ncclFloat64", "Double"},
      {"ncclDouble", "Double"},
      {"ncclBfloat16", "BFloat16"},
      {"ncclFloat8e4m3", "Float8_e4m3fn"},
      {"ncclFloat8e5m2", "Float8_e5m2"},
  };
  for (const auto& [from, to] : kMap) {
    if (from == nccl) return to;
  }
  return nccl;
}

std::string NcclCollectiveName(std::string_view func) {
  std::string out = AsciiLower(func);
  if (out == "allgather") return "all_gather";
  if (out == "reducescatter") return "reduce_scatter";
  if (out == "alltoall") return "all_to_all";
  return out;
}

}  // namespace plasmient::ingest::native
