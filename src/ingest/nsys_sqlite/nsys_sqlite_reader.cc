#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "ingest/nsys_sqlite/nsys_meta.h"

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
Status CheckHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Fail("{}: cannot open: {}", path, std::strerror(errno));
  const auto file_bytes = static_cast<std::uint64_t>(in.tellg());
  std::array<unsigned char, kHeaderBytes> header{};
  in.seekg(0);
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  const auto got = static_cast<std::size_t>(in.gcount());
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
  return Ok();
}

std::uint64_t FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return in ? static_cast<std::uint64_t>(in.tellg()) : 0;
}

void SetRank(model::TraceInfo& info, const NsysExportMeta& meta) {
  info.rank = RankFromEnvironment(meta);
  if (info.rank < 0) info.rank = RankFromPath(info.path);
  info.world_size = WorldSizeFromEnvironment(meta);
  info.hostname = meta.hostname;
}

}  // namespace

bool LooksLikeSqlite(std::string_view first_bytes) { return first_bytes.starts_with(kSqliteMagic); }

Result<model::Trace> ReadNsysSqlite(const std::string& path, const NsysReadOptions& options) {
  PLASMIENT_TRY(CheckHeader(path));
  auto db = Db::Open(path);
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
  info.input_bytes = static_cast<std::int64_t>(FileBytes(path));
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
  builder.info().events = ctx.rows;
  return std::move(builder).Finish();
}

}  // namespace plasmient::ingest::nsys
