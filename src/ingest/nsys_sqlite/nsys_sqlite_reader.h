// Nsight Systems SQLite exports (`nsys export --type sqlite`) as an input format: kernels,
// memcpys, memsets, runtime/driver calls, NVTX ranges and device descriptions into one
// model::Trace, with timestamps moved to UTC epoch nanoseconds. See docs/nsys.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "ingest/input_file.h"
#include "ingest/nsys_sqlite/nsys_parse_context.h"
#include "model/trace.h"

namespace plasmient::ingest::nsys {

struct NsysReadOptions {
  // Optional: called every 65536 rows and at the end of each table with its rows read so far.
  ProgressFn progress;
  OpenRules open;         // how the file is opened (input_file.h)
  int max_seconds = 600;  // all of the file's queries together; then the read fails
};

// True when `first_bytes` starts with the SQLite header "SQLite format 3\0".
bool LooksLikeSqlite(std::string_view first_bytes);

// Reads the whole export. Fatal only when nothing sensible can come out (not SQLite, truncated,
// corrupt, encrypted or locked, no tables, no Nsight Systems tables); missing tables and
// columns are counted in the trace's data quality instead.
[[nodiscard]] Result<model::Trace> ReadNsysSqlite(const std::string& path,
                                                  const NsysReadOptions& options = {});

}  // namespace plasmient::ingest::nsys
