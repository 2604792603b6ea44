// A job's inputs as one entry, the way the spool holds them and `analyze --record` is given them
// (a trace file, or a folder of one trace per rank), and the keys the store files it under.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ingest/input_file.h"

namespace plasmient::store {

struct JobEntry {
  std::string name;  // file or folder name (in the spool, or as given to analyze)
  std::filesystem::path path;
  bool is_folder = false;
  std::filesystem::path marker;              // the .done file, when there is one
  std::vector<std::filesystem::path> files;  // trace files, sorted (the file itself for a file)
  std::string refusal;                       // non-empty: why the entry is refused unread
};

// Which file a path was when it was read: a file renamed over it, or written in place, since
// then is another (its inode, size, modification or change time differ).
struct FileIdentity {
  std::uint64_t dev = 0, ino = 0;
  std::int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

// A 128-bit hash (hex) of the entry's name and its files' names and contents: the job key.
// The files are opened as `rules` say (input_file.h); `identities`, when given, gets each file's
// identity as it was hashed. `stop`, when given, is asked between reads: true ends the hash with
// an error.
Result<std::string> HashEntry(const JobEntry& entry, const ingest::OpenRules& rules = {},
                              const std::function<bool()>& stop = {},
                              std::vector<FileIdentity>* identities = nullptr);
// The entry's files' identities now, opened as `rules` say.
Result<std::vector<FileIdentity>> IdentitiesOf(const JobEntry& entry, const ingest::OpenRules& rules = {});

// The job id: a folder's name, the job of an agent's window file ("<job>-<rank>-<host>-<pid>-
// <seq>.pltrace"), or a file's name without its trace extensions.
std::string JobIdOf(const JobEntry& entry);

}  // namespace plasmient::store
