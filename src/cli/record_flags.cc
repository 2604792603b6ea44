#include "cli/record_flags.h"

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/analyze_command.h"
#include "store/record.h"

namespace plasmient::cli {

bool ParseLabelFlags(const std::vector<std::string>& texts, store::Labels& out) {
  for (const auto& t : texts) {
    auto l = store::ParseLabel(t);
    if (!l) {
      fmt::print(stderr, "plasmient: {}\n", l.error().message);
      return false;
    }
    out.push_back(std::move(*l));
  }
  return true;
}

void AddRecordOptions(CLI::App& app, RecordFlags& f) {
  app.add_option("--db", f.db, "record the verdict in this SQLite store (for `plasmient fleet`)");
  app.add_option("--clickhouse", f.clickhouse, "record the verdict in ClickHouse, http://HOST:PORT");
  app.add_option("--clickhouse-db", f.clickhouse_db, "ClickHouse database")->capture_default_str();
  app.add_option("--job", f.job, "the job's name in the store (default: the folder's or file's name)");
  app.add_option("--label", f.labels, "key=value label on the job (user, team, ...); repeatable");
  app.add_option("--host", f.host, "the host column in the store (default: this host's name)");
}

bool RecordAsked(const RecordFlags& f) { return !f.db.empty() || !f.clickhouse.empty(); }

int RecordIfAsked(const RecordFlags& f, const verdict::JobVerdict& job, const std::vector<std::string>& given,
                  const std::vector<std::string>& files) {
  if (!RecordAsked(f)) return 0;
  store::RecordOptions o;
  o.db_path = f.db;
  o.job_id = f.job;
  o.host = f.host;
  if (!ParseLabelFlags(f.labels, o.labels)) return 2;
  if (!f.clickhouse.empty()) {
    store::ClickHouseOptions ch;
    ch.url = f.clickhouse;
    ch.database = f.clickhouse_db;
    o.clickhouse = ch;
  }
  std::vector<std::filesystem::path> paths(files.begin(), files.end());
  auto r = store::RecordAnalysis(job, given, paths, o);
  if (!r) {
    fmt::print(stderr, "plasmient: {}\n", r.error().message);
    return 1;
  }
  return 0;
}

}  // namespace plasmient::cli
