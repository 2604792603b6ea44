#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "ingest/nsys_sqlite/nsys_meta.h"
#include "ingest/trace_kinds.h"

namespace plasmient::ingest::nsys {
namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::size_t kHeaderBytes = 100;

std::uint32_t BigEndian(const unsigned char* p, int n) {
  std::uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

// Checks the 100-byte database header against the file size, so a cut-off copy fails with a
// clear message instead of a "malformed" error halfway through a table.
Result<std::uint64_t> CheckHeader(const std::string& path, const OpenRules& rules) {
  auto file = InputFile::Open(path, rules);
  if (!file) return std::unexpected(file.error());
  const auto file_bytes = static_cast<std::uint64_t>(file->size());
  std::array<unsigned char, kHeaderBytes> header{};
  ssize_t read = ::pread(file->fd(), header.data(), header.size(), 0);
  if (read < 0) return Fail("{}: cannot read: {}", path, std::strerror(errno));
  const auto got = static_cast<std::size_t>(read);
  std::string_view first(reinterpret_cast<const char*>(header.data()), got);
  if (!LooksLikeSqlite(first)) {
    return Fail(
        "{}: byte 0: not an SQLite file (no \"SQLite format 3\" header); expected `nsys export --type "
        "sqlite` output",
        path);
  }
  if (got < kHeaderBytes) return Fail("{}: byte {}: truncated SQLite file (header cut off)", path, got);
  std::uint64_t page_bytes = BigEndian(&header[16], 2);
  if (page_bytes == 1) page_bytes = 65536;
  if (page_bytes < 512 || (page_bytes & (page_bytes - 1)) != 0) {
    return Fail("{}: byte 16: corrupt SQLite header (page size {})", path, page_bytes);
  }
  if (file_bytes % page_bytes != 0) {
    return Fail("{}: byte {}: truncated SQLite file (size is not a whole number of {}-byte pages)", path,
                file_bytes, page_bytes);
  }
  // The page count at byte 28 is trustworthy only when its version stamp matches the change counter.
  std::uint64_t pages = BigEndian(&header[28], 4);
  if (pages != 0 && BigEndian(&header[92], 4) == BigEndian(&header[24], 4) &&
      pages * page_bytes > file_bytes) {
    return Fail("{}: byte {}: truncated SQLite file (header says {} pages of {} bytes = {} bytes)", path,
                file_bytes, pages, page_bytes, pages * page_bytes);
  }
  return file_bytes;
}

void SetRank(model::TraceInfo& info, const NsysExportMeta& meta) {
  info.rank = RankFromEnvironment(meta);
  if (info.rank < 0) info.rank = ingest::RankFromPath(info.path);
  info.world_size = WorldSizeFromEnvironment(meta);
  info.hostname = meta.hostname;
}

}  // namespace

bool LooksLikeSqlite(std::string_view first_bytes) { return first_bytes.starts_with(kSqliteMagic); }

Result<model::Trace> ReadNsysSqlite(const std::string& path, const NsysReadOptions& options) {
  auto file_bytes = CheckHeader(path, options.open);
  if (!file_bytes) return std::unexpected(std::move(file_bytes.error()));
  auto db = Db::Open(path, {.no_follow = options.open.no_follow, .max_seconds = options.max_seconds});
  if (!db) return std::unexpected(std::move(db.error()));
  auto schema = NsysSchema::Load(*db);
  if (!schema) return std::unexpected(std::move(schema.error()));
  if (schema->table_count() == 0)
    return Fail("{}: SQLite file has no tables; not an Nsight Systems export", path);
  if (!schema->LooksLikeNsys()) {
    return Fail(
        "{}: none of its {} tables is one Nsight Systems writes; not an `nsys export --type sqlite` file",
        path, schema->table_count());
  }

  model::TraceInfo info;
  info.path = path;
  info.format = "nsys-sqlite";
  info.input_bytes = static_cast<std::int64_t>(*file_bytes);
  model::TraceBuilder builder(std::move(info));
  auto meta = ReadExportMeta(*db, *schema, builder.quality());
  if (!meta) return std::unexpected(std::move(meta.error()));
  SetRank(builder.info(), *meta);
  builder.info().base_time_ns = meta->session_start_utc_ns;

  if (!schema->HasTable(kStringsTable)) builder.quality().Add(model::Dq::kMissingTable);
  auto strings = StringIds::Open(*db, *schema, builder.strings());
  if (!strings) return std::unexpected(std::move(strings.error()));
  ParseContext ctx{.db = *db,
                   .schema = *schema,
                   .strings = *strings,
                   .builder = builder,
                   .base_ns = meta->session_start_utc_ns,
                   .schema_major = meta->schema_major,
                   .progress = &options.progress};
  PLASMIENT_TRY(ParseDevices(ctx));
  PLASMIENT_TRY(ParseGpuActivities(ctx));
  PLASMIENT_TRY(ParseApiCalls(ctx));
  PLASMIENT_TRY(ParseNvtx(ctx));
  PLASMIENT_TRY(ParseProfilerOverhead(ctx));
  PLASMIENT_TRY(ParseGpuMetrics(ctx));
  builder.info().events = ctx.rows;
  return std::move(builder).Finish();
}

}  // namespace plasmient::ingest::nsys
