#include "ingest/read_trace.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include "ingest/native/native_reader.h"
#include "ingest/nsys_sqlite/nsys_meta.h"
#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"
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
      return nsys::ReadNsysSqlite(path, no);
    }
    case Format::kNative:
      return native::ReadNative(path);
    case Format::kUnknown:
      break;
  }
  return Fail("{}: unknown trace format at byte 0", path);
}

}  // namespace

Result<Format> DetectFormat(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Fail("{}: cannot open: {}", path, std::strerror(errno));
  char head[16] = {};
  std::size_t n = std::fread(head, 1, sizeof head, f.get());
  std::string_view first(head, n);
  if (n == 0) return Fail("{}: empty file at byte 0", path);
  if (nsys::LooksLikeSqlite(first)) return Format::kNsysSqlite;
  if (first.starts_with(kNativeMagic)) return Format::kNative;
  // Kineto JSON, plain or gzip: its reader checks the content itself.
  return Format::kKinetoJson;
}

Result<model::Trace> ReadTrace(const std::string& path, const IngestOptions& options) {
  auto format = DetectFormat(path);
  if (!format) return std::unexpected(format.error());
  auto trace = ReadByFormat(path, *format, options);
  // No rank inside the file: "rank-3", "rank_3", "rank3" in its name says which.
  if (trace && trace->info.rank < 0) trace->info.rank = nsys::RankFromPath(path);
  return trace;
}

}  // namespace plasmient::ingest
