// Reads a Plasmient native trace (written by the live agent) into the model, through
// TraceBuilder, so the rows match what the Kineto path gives for the same run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"
#include "model/trace.h"

namespace plasmient::ingest::native {

inline constexpr std::string_view kGemmOpName = "cublas::gemm";

// What a native file covers, from its header (wire::FileFlags): a process's whole run, one
// kernel window of a duty-cycled agent, or the device-tier samples between two windows.
// kNotNative for anything else (unreadable, another format, a damaged header).
enum class Coverage { kNotNative, kWholeRun, kWindow, kSamples };
Coverage NativeCoverage(const std::string& path, const OpenRules& rules = {});

// Fatal only when the file cannot be opened or is not a native trace at all. A cut-off file,
// corrupt chunks and agent drops are counted (kTruncatedNativeFile, kCorruptChunk,
// kDroppedRecords) and everything readable is returned. Fatal too when the chunks decompress to
// more than `max_decoded_bytes` in all (0: DecodedBytesCap of the file's size, input_file.h).
Result<model::Trace> ReadNative(const std::string& path, const OpenRules& rules = {},
                                std::int64_t max_decoded_bytes = 0);
Result<model::Trace> ReadNativeBytes(const std::uint8_t* data, std::size_t size, const std::string& path,
                                     std::int64_t max_decoded_bytes = 0);

}  // namespace plasmient::ingest::native
