// The one entry point for reading a trace: the format is detected from the content
// (Kineto JSON plain or gzip, Nsight Systems SQLite, Plasmient native), never the name.
#pragma once

#include <string>

#include "base/result.h"
#include "ingest/kineto_json/kineto_json_reader.h"
#include "model/trace.h"

namespace plasmient::ingest {

enum class Format { kKinetoJson, kNsysSqlite, kNative, kUnknown };

// Reads the first bytes of `path` and names its format (kUnknown for bytes no reader takes);
// fails when the file cannot be opened as an input (input_file.h), is empty, is one of
// Plasmient's own outputs, or is an Nsight Systems report not exported to SQLite (own_outputs.h).
Result<Format> DetectFormat(const std::string& path, const OpenRules& rules = {});

Result<model::Trace> ReadTrace(const std::string& path, const IngestOptions& options = {});

// True when ReadTrace's `error` says the file is no trace at all (a JSON document without
// traceEvents, one of Plasmient's own outputs), as opposed to a trace that is damaged or unreadable.
bool IsNotATrace(const Error& error);

}  // namespace plasmient::ingest
