// Writing a file where others can create names (a spool shared by a group, a state folder): the
// text goes to a new file beside the path, created with O_EXCL|O_NOFOLLOW under an unpredictable
// name (mkstemp), so no link or file planted in advance is written through or truncated, and is
// renamed over the path, which replaces a link there without following it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "base/result.h"

namespace plasmient {

struct ReplaceFileOptions {
  mode_t mode = 0600;
  // fsync the file before the rename and the folder after it: the new text survives a crash once
  // this returns.
  bool durable = false;
  // The temporary name is "<path>.XXXXXX<temp_suffix>": readers that skip names ending so (the
  // spool skips .part and .tmp) never take a half-written file.
  std::string_view temp_suffix = ".part";
};

// Errors: "PATH: cannot write: REASON".
Status ReplaceFile(const std::filesystem::path& path, std::string_view data,
                   const ReplaceFileOptions& options = {});

// mkostemps on "<path>.XXXXXX<suffix>": a new file (O_EXCL, never a link), its descriptor and name;
// -1 with errno set when none could be made.
int CreateTempBeside(const std::filesystem::path& path, std::string_view suffix, std::string& temp_name);

}  // namespace plasmient
