#include "ingest/read_trace.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ingest/kineto_json/no_trace_events.h"
#include "ingest/native/native_reader.h"
#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"
#include "ingest/own_outputs.h"
#include "ingest/trace_kinds.h"
#include "wire/file_format.h"

namespace plasmient::ingest {
namespace {

constexpr std::string_view kNativeMagic{wire::kFileMagic, sizeof wire::kFileMagic};

Result<model::Trace> ReadByFormat(const std::string& path, Format format, const IngestOptions& options) {
  switch (format) {
    case Format::kKinetoJson:
      return ReadKinetoJson(path, options);
    case Format::kNsysSqlite: {
      nsys::NsysReadOptions no;
      no.open = options.open;
      return nsys::ReadNsysSqlite(path, no);
    }
    case Format::kNative:
      return native::ReadNative(path, options.open, options.max_decoded_bytes);
    case Format::kUnknown:
      break;
  }
  return Fail("{}: unknown trace format at byte 0", path);
}

}  // namespace

Result<Format> DetectFormat(const std::string& path, const OpenRules& rules) {
  auto file = InputFile::Open(path, rules);
  if (!file) return std::unexpected(file.error());
  char head[kRefusalHeadBytes] = {};
  ssize_t got = ::pread(file->fd(), head, sizeof head, 0);
  if (got < 0) return Fail("{}: cannot read: {} at byte 0", path, std::strerror(errno));
  std::string_view first(head, static_cast<std::size_t>(got));
  if (first.empty()) return Fail("{}: empty file at byte 0", path);
  if (auto why = RefusalOf(path, first)) return Fail("{}", *why);
  if (nsys::LooksLikeSqlite(first)) return Format::kNsysSqlite;
  if (first.starts_with(kNativeMagic)) return Format::kNative;
  if (LooksLikeGzip(first)) return Format::kKinetoJson;
  // Plain JSON opens with '{' or '[' after optional white space and a UTF-8 byte-order mark.
  if (first.starts_with("\xEF\xBB\xBF")) first.remove_prefix(3);
  std::size_t at = first.find_first_not_of(" \t\r\n");
  if (at == std::string_view::npos && first.size() == sizeof head)
    return Format::kKinetoJson;  // its reader decides
  if (at != std::string_view::npos && (first[at] == '{' || first[at] == '[')) return Format::kKinetoJson;
  // The content decides; the name only says what to do with bytes no reader takes.
  if (auto why = UnexportedReportOf(path)) return Fail("{}", *why);
  return Format::kUnknown;
}

Result<model::Trace> ReadTrace(const std::string& path, const IngestOptions& options) {
  auto format = DetectFormat(path, options.open);
  if (!format) return std::unexpected(format.error());
  auto trace = ReadByFormat(path, *format, options);
  // No rank inside the file: "rank-3", "rank_3", "rank3" in its name says which.
  if (trace && trace->info.rank < 0) trace->info.rank = RankFromPath(path);
  return trace;
}

bool IsNotATrace(const Error& error) {
  return error.message.find(kNoTraceEvents) != std::string::npos || IsOwnOutputRefusal(error.message);
}

}  // namespace plasmient::ingest
