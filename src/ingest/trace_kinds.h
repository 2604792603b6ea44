// The kinds of trace Plasmient reads by name, in one place: the file-name suffixes that mark a
// trace in a folder (analyze, serve's spool, the agent's own files). How a file is read is
// decided by its content, never its name (read_trace.h, DetectFormat).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wire/file_format.h"

namespace plasmient::ingest {

// Trace file suffixes, in the order messages list them (none is the end of another, so the order
// does not change which one a name matches): Kineto JSON (plain, gzip), Nsight Systems SQLite, and
// the agent's native files.
inline constexpr std::string_view kTraceSuffixes[] = {".json", ".json.gz", ".sqlite", wire::kFileSuffix};

// "name.json.gz" and the rest: a trace by its name (more than a bare suffix).
bool IsTraceFileName(std::string_view name);

// ".json, .json.gz, .sqlite, .pltrace": the suffixes for messages and help.
std::string TraceSuffixList();

// A rank number in a file name, for a trace that does not say its rank inside: "rank3",
// "rank-3", "rank_3", "RANK.3", or "_3.sqlite"; -1 if none. Only the last path component counts.
std::int64_t RankFromPath(std::string_view path);

// The name without its trace suffix and a Kineto ".pt.trace" before it: "r1.pt.trace.json.gz"
// gives "r1". A name without a trace suffix comes back whole.
std::string_view TraceStem(std::string_view name);

}  // namespace plasmient::ingest
