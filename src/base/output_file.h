// A file written whole or not at all. The text goes to a temporary file beside the path and is
// renamed over it on Commit(); an OutputFile dropped without Commit() (a failed write, an error on
// the way) removes its temporary file, and a file already at the path is left as it was. A path
// that is not a regular file (/dev/stdout, a FIFO, a symbolic link) is written in place.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "base/result.h"

namespace plasmient {

class OutputFile {
 public:
  // Errors: "PATH: cannot write: REASON".
  static Result<OutputFile> Open(const std::string& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  std::FILE* get() const { return file_; }
  // Appends `text`; false once any write has failed.
  bool Write(std::string_view text);
  // Closes the file and puts it at the path; the first failed write, flush or rename is the error.
  Status Commit();

 private:
  OutputFile(std::string path, std::string temp, std::FILE* file)
      : path_(std::move(path)), temp_(std::move(temp)), file_(file) {}

  std::string path_;
  std::string temp_;  // empty: written in place
  std::FILE* file_ = nullptr;
  bool failed_ = false;
  int errno_ = 0;  // of the first failed write
};

}  // namespace plasmient
