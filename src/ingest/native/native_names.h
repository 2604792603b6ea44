// Names the native reader gives to agent records, chosen to match what the Kineto path shows
// for the same run (memcpy/memset names, API names without version suffixes, dtype spellings).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace plasmient::ingest::native {

// "Memcpy HtoD (Pageable -> Device)", as Kineto names CUPTI memcpy records.
std::string MemcpyName(std::uint8_t copy_kind, std::uint8_t src_kind, std::uint8_t dst_kind);
// "Memset (Device)".
std::string MemsetName(std::uint16_t memory_kind);
// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string_view StripApiVersion(std::string_view name);
// Demangled C++ name, or the input when it is not a mangled name.
std::string Demangle(std::string_view name);
// cudaDataType_t value -> PyTorch's spelling in Kineto "Input type" ("c10::BFloat16", "float").
std::string_view CudaDtypeName(std::int32_t cuda_dtype);
// NCCL datatype string ("ncclBfloat16", "ncclFloat32") -> Kineto's collective dtype ("BFloat16").
std::string_view NcclDtypeName(std::string_view nccl);
// NCCL function name ("AllReduce") -> Kineto's collective name ("allreduce").
std::string NcclCollectiveName(std::string_view func);

}  // namespace plasmient::ingest::native
