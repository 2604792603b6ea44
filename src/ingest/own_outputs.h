// Files that look like input but are not traces Plasmient can read: its own outputs fed back
// (the Perfetto trace of `analyze --perfetto`, the JSON of `--json`), and Nsight Systems reports
// not yet exported to SQLite. Each is known from the first bytes of the file, and refused with a
// sentence that says what it is and what to give instead.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace plasmient::ingest {

// How the Perfetto JSON that `analyze --perfetto` writes begins: its writer puts this first so
// that a reader peeking at the head knows it (the Chrome trace format leaves the order of the
// top-level keys free; otherData is where it keeps a producer's metadata).
inline constexpr std::string_view kPerfettoOutputHead = R"({"otherData":{"producer":"plasmient"},)";

// How many first bytes RefusalOf needs to see: Plasmient's outputs name themselves in the first
// few dozen.
inline constexpr std::size_t kRefusalHeadBytes = 256;

// Why the file at `path`, whose first bytes are `head`, is refused as input, as one line that
// names the file ("run.json: this is Plasmient's own verdict JSON (written by analyze --json),
// not a trace: give the profiler's trace"); nullopt for anything a reader may try. `head` is the
// start of the file as stored (a gzip stream is not looked into).
std::optional<std::string> RefusalOf(std::string_view path, std::string_view head);

// True for a name Nsight Systems gives its reports: "run.nsys-rep", and "run.qdrep" before 2021.4.
bool IsNsightReportName(std::string_view path);

// For a file no reader takes (DetectFormat's kUnknown) named as an Nsight Systems report: the line
// that says how to export it ("run.nsys-rep: an Nsight Systems report; export it first: nsys export
// --type sqlite -o run.sqlite run.nsys-rep"); nullopt for any other name.
std::optional<std::string> UnexportedReportOf(std::string_view path);

// True when `message` is RefusalOf's sentence for one of Plasmient's own outputs.
bool IsOwnOutputRefusal(std::string_view message);

}  // namespace plasmient::ingest
