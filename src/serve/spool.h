// The spool folder protocol (docs/fleet.md). A top-level entry is ready when:
//   - it is a trace file (.json, .json.gz, .sqlite, .pltrace) whose name does not start with
//     '.' and does not end in .part or .tmp: writers create it under such a name and rename it
//     into place, which is atomic;
//   - it is a folder (one job, one trace file per rank) holding a `.done` file, or with a
//     sibling `<folder>.done`: writers create the marker last. A folder that still holds a
//     trace under an in-progress name (being written or copied) waits for it to be renamed,
//     unless nothing wrote it for kAbandonedAge.
// A file under an in-progress name is never read, moved or failed: an agent cut by kill -9
// leaves its `.part` where it was.
// A `<entry>.done` marker may hold `key=value` lines: the job's labels. Analyzed entries move
// to done/, bad ones to failed/ beside a `<entry>.error` file.
// The daemon may run as root while any user writes the spool: symbolic links (the entry, its
// marker, the files of a job folder), anything but regular files and folders, and entries owned
// by another user than the spool's owner are refused (moved to failed/ with the reason), never
// read; every file is opened with O_NOFOLLOW, component by component from the spool when the
// caller says so (ingest::OpenRules::beneath), and moves go through directory descriptors.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"
#include "store/job_key.h"
#include "store/job_rows.h"

namespace plasmient::serve {

// An entry of the spool: a job's inputs (store/job_key.h).
using SpoolEntry = store::JobEntry;

struct SpoolRules {
  bool any_owner = false;  // accept entries owned by users other than the spool's owner
};

bool IsTraceFileName(std::string_view name);

// How long a trace under an in-progress name inside a marked job folder holds the folder back
// after its last write: a writer that stopped for that long has died, and the folder's complete
// traces are analyzed without it.
inline constexpr std::chrono::minutes kAbandonedAge{10};

// Ready entries, oldest first (by modification time, then name), at most `limit`; `total` gets
// how many are ready in all. Refused entries are ready too (with `refusal` set).
std::vector<SpoolEntry> ListReady(const std::filesystem::path& spool, std::size_t limit, std::size_t* total,
                                  const SpoolRules& rules = {});

// The labels in the entry's .done marker ("key=value" lines; blank lines and # comments skipped;
// at most kMaxMarkerBytes). Opened as `rules` say; an error never quotes the marker's text.
inline constexpr std::int64_t kMaxMarkerBytes = 64 << 10;
Result<store::Labels> ReadMarkerLabels(const SpoolEntry& entry,
                                       const ingest::OpenRules& rules = {.no_follow = true});

// Moves the entry (and its sibling marker) into spool/<to>/, renaming on a clash. The moves go
// through descriptors of the spool and of <to>: a <to> that is a symbolic link is refused.
Result<std::filesystem::path> MoveEntry(const SpoolEntry& entry, const std::filesystem::path& spool,
                                        std::string_view to);
// Moves it to failed/ and writes failed/<name>.error (mode 0600, control characters dropped)
// with the message.
Status FailEntry(const SpoolEntry& entry, const std::filesystem::path& spool, std::string_view error);

}  // namespace plasmient::serve
