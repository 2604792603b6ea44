#include "store/record.h"

#include <unistd.h>

#include <chrono>

#include "store/job_key.h"
#include "store/sqlite_store.h"

namespace plasmient::store {

std::string LocalHostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

Result<int> RecordAnalysis(const verdict::JobVerdict& job, const std::vector<std::string>& given_inputs,
                           const std::vector<std::filesystem::path>& files, const RecordOptions& o) {
  JobEntry entry;
  entry.path = given_inputs.empty() ? std::filesystem::path() : std::filesystem::path(given_inputs.front());
  entry.name = entry.path.filename().string();
  if (entry.name.empty()) entry.name = entry.path.parent_path().filename().string();
  entry.is_folder = std::filesystem::is_directory(entry.path);
  entry.files = files;
  JobContext ctx;
  ctx.job_id = o.job_id.empty() ? JobIdOf(entry) : o.job_id;
  entry.name = ctx.job_id;  // the key follows the job's name and its traces' names and bytes
  auto key = HashEntry(entry);
  if (!key) return std::unexpected(key.error());
  ctx.job_key = *key;
  ctx.at_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  ctx.host = o.host.empty() ? LocalHostName() : o.host;
  ctx.labels = o.labels;
  for (const auto& f : files) ctx.inputs.push_back(f.filename().string());
  Batch batch = BuildRows(job, ctx);
  int fresh = 0;
  if (!o.db_path.empty()) {
    auto db = SqliteStore::Open(o.db_path);
    if (!db) return std::unexpected(db.error());
    auto n = (*db)->Record(batch, given_inputs.empty() ? "" : given_inputs.front());
    if (!n) return std::unexpected(n.error());
    fresh += *n > 0;
  }
  if (o.clickhouse) {
    auto ch = ClickHouseStore::Open(*o.clickhouse);
    if (!ch) return std::unexpected(ch.error());
    PLASMIENT_TRY((*ch)->EnsureSchema());
    auto n = (*ch)->Insert(batch);
    if (!n) return std::unexpected(n.error());
    fresh += *n > 0;
  }
  return fresh;
}

}  // namespace plasmient::store
