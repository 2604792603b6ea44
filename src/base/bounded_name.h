// Names from a trace (kernels, ops, modules, collectives, labels) are the input's to choose: a
// 6 MiB kernel name made /metrics 503 MB and the SQLite store 353 MB larger. Where names enter the
// model they are made valid UTF-8 (each invalid byte becomes U+FFFD) and cut to kMaxNameBytes,
// at a character boundary, with a hash of the whole name appended, so two long names that share
// their first bytes stay two names, the same in every run and on every rank.
//
// Why 8 KiB and not a few hundred bytes: real kernel names are long. PyTorch's templated
// elementwise kernels run to 5,123 bytes in the dev traces (hta/critical_path/alexnet), CUTLASS
// and CK names to over 600, and Nsight's string table to 2,896; a cut at 512 renamed the kernels
// of 8 of them. 8 KiB keeps every real name whole and bounds a 6 MiB one 750-fold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace plasmient {

inline constexpr std::size_t kMaxNameBytes = 8 << 10;

// The length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlongs, no surrogates).
std::size_t Utf8SequenceLength(std::string_view s, std::size_t i);

// True when `name` is short enough and valid UTF-8: BoundName would return it unchanged.
bool IsBoundedName(std::string_view name);

// `name` when IsBoundedName, else its valid UTF-8 form cut to at most kMaxNameBytes as
// "<first bytes>…#<16 hex digits of a 64-bit hash of the original bytes>".
std::string BoundName(std::string_view name);

// The 64-bit hash BoundName appends (FNV-1a of the bytes: the same in every build and on every host).
std::uint64_t NameHash(std::string_view name);

// `name` when it is valid UTF-8 of at most `max_bytes`; else `short_form` in its valid UTF-8 form,
// cut at a character boundary, then "…#<16 hex digits of NameHash(name)>": at most `max_bytes`
// (which must exceed the 20 bytes of that suffix). Two names with one short form stay two.
std::string BoundNameTo(std::string_view name, std::size_t max_bytes, std::string_view short_form);

// A label's value (`--label`, a marker's `team=`/`user=`/`job=` lines, `--host`): labels are
// short words that name a team or a run, and each is copied into every stored job row and every
// series of a job, so a 64 KiB marker line would cost 64 KiB per row. At most kMaxLabelBytes:
// BoundNameTo(value, kMaxLabelBytes, value), valid UTF-8, a cut one ending in the hash of the whole.
inline constexpr std::size_t kMaxLabelBytes = 256;
std::string BoundLabel(std::string_view value);

// `text` for a log line: each control character (below 0x20, and 0x7F) and each byte that is not
// part of valid UTF-8 written as `\xNN`, and a backslash as `\\`, so a file name holding a
// newline or an escape sequence can neither start a forged line nor reach the terminal.
std::string EscapeForLog(std::string_view text);

}  // namespace plasmient
