// Kineto (PyTorch profiler) Chrome-trace JSON ingest: a file or buffer, plain or gzip
// (detected by content), into one model::Trace.
//
// Pipeline: ChunkReader (a mapped file, or gzip inflated -> chunks) -> EventFramer (events of
// traceEvents, other top-level values, in batches) -> bounded ParsePipeline -> EventParser
// (simdjson stage 1 and On-Demand walk of a batch, into rows) -> RowApplier ->
// model::TraceBuilder. Reading and framing run on one thread, gzip inflating a few chunks ahead on
// another; batches are parsed on `parse_threads` more, each batch whole on one; the caller's
// thread applies the rows in input order, so the trace is the one a single thread reads, row for
// row and string for string.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "ingest/input_file.h"
#include "ingest/kineto_json/chunk_reader.h"
#include "model/trace.h"

namespace plasmient::ingest {

struct IngestOptions {
  // Called on the caller's thread every few MB with raw (file) bytes; may be empty.
  std::function<void(std::int64_t bytes_done, std::int64_t bytes_total)> progress;
  std::size_t chunk_bytes = 0;         // read/inflate size; 0 = 8 MiB, 1 MiB gzip. Tests use tiny sizes.
  std::size_t batch_bytes = 0;         // framed JSON per parser batch; 0 = 1 MiB
  bool threaded = true;                // frame and parse on other threads (false: all on the caller's)
  std::size_t parse_threads = 0;       // threads parsing batches when threaded; 0 = one per core
  OpenRules open;                      // how the file is opened (input_file.h)
  std::int64_t max_decoded_bytes = 0;  // inflated bytes; 0 = DecodedBytesCap(the input's size)
  std::size_t max_event_bytes = kMaxEventBytes;
};

// Reads a Kineto trace file (.json or gzip). Fails, with "<path>: <problem> at byte <offset>",
// on empty, non-JSON, truncated or corrupt input, or when there is no traceEvents array.
Result<model::Trace> ReadKinetoJson(const std::string& path, const IngestOptions& options = {});

// The same from memory; `name` is used in error messages and as the trace's path.
Result<model::Trace> ReadKinetoJsonBuffer(std::string_view bytes, const std::string& name,
                                          const IngestOptions& options = {});

}  // namespace plasmient::ingest
