// How every reader opens a trace file, and the caps every reader applies (docs/fleet.md,
// "Hostile input"): whoever runs Plasmient — a user on a laptop or `serve` as root on a GPU node — one
// small hostile file must not block the reader, read what its writer could not, or take the
// node's memory.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"

namespace plasmient::ingest {

// One Kineto event (and so any JSON string inside it) or one kept top-level value: no real
// trace comes near it; the framer would otherwise buffer an unfinished event without bound.
inline constexpr std::size_t kMaxEventBytes = 64u << 20;
// A top-level key of the JSON document.
inline constexpr std::size_t kMaxTopLevelKeyBytes = 64u << 10;
// Decoded bytes per input (gzip inflated, native chunks decompressed): kDecodedBytesFactor times
// the input's size, and never less than kMinDecodedBytesCap. Real Kineto gzip expands 8-30x.
inline constexpr std::int64_t kDecodedBytesFactor = 100;
inline constexpr std::int64_t kMinDecodedBytesCap = 256ll << 20;

// The default cap for an input of `input_bytes`.
std::int64_t DecodedBytesCap(std::int64_t input_bytes);

// How a caller wants its inputs opened.
struct OpenRules {
  bool no_follow = false;  // refuse a symbolic link as the file itself (serve's spool)
  // A folder trusted as given (serve's spool). A path below it is opened component by component
  // from the folder (openat, O_NOFOLLOW at every step): a folder on the way swapped for a link
  // after it was checked is refused, never followed. Empty: the path is opened as given.
  std::string beneath;
};

// open(2) of `path` with `flags` (O_CLOEXEC added) where every component below `beneath` is
// opened without following a link; `path` not below `beneath`, or `beneath` empty: a plain
// open. -1 with errno on failure: ELOOP when a component is a link, EACCES for "..".
int OpenBeneath(const std::string& path, const std::string& beneath, int flags, unsigned mode = 0);

// An open, regular input file.
class InputFile {
 public:
  // Fails, naming the file, when it cannot be opened, is a symbolic link under `no_follow`, or
  // is not a regular file (a FIFO would block, a device or socket never ends). Never blocks.
  static Result<InputFile> Open(const std::string& path, const OpenRules& rules = {});
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  std::int64_t size() const { return size_; }
  // Gives up the descriptor (the caller closes it).
  int Release();

 private:
  InputFile(int fd, std::int64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  std::int64_t size_ = 0;
};

// "a FIFO", "a directory", ...: what a file of mode `st_mode` is, for messages.
std::string_view FileKindName(unsigned st_mode);

}  // namespace plasmient::ingest
