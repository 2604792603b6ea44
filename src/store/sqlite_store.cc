#include "store/sqlite_store.h"

#include <set>
#include <string_view>

#include <sqlite3.h>

namespace plasmient::store {
namespace {

std::string CreateTableSql(const TableSpec& t) {
  std::string sql = "CREATE TABLE IF NOT EXISTS " + std::string(t.name) + " (";
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const auto& c = t.columns[i];
    sql += (i ? ", " : "") + std::string(c.name) + " " +
           (c.type == ColumnType::kInt     ? "INTEGER"
            : c.type == ColumnType::kFloat ? "REAL"
                                           : "TEXT");
  }
  sql += ");\nCREATE INDEX IF NOT EXISTS " + std::string(t.name) + "_job_key ON " + std::string(t.name) +
         " (job_key);\nCREATE INDEX IF NOT EXISTS " + std::string(t.name) + "_at_ns ON " +
         std::string(t.name) + " (at_ns);\n";
  return sql;
}

struct Statement {
  sqlite3_stmt* stmt = nullptr;
  ~Statement() { sqlite3_finalize(stmt); }
  // Whether `sql` compiled on `db`; sqlite3_errmsg(db) says why not.
  bool Prepare(sqlite3* db, const char* sql) {
    return sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK;
  }
  void BindText(int at, std::string_view text) {
    sqlite3_bind_text(stmt, at, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
};

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Fail("{}: cannot open the SQLite store: {}", path, msg);
  }
  sqlite3_busy_timeout(db, 10'000);
  std::unique_ptr<SqliteStore> store(new SqliteStore(db, path));
  PLASMIENT_TRY(store->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  PLASMIENT_TRY(store->EnsureSchema());
  return store;
}

SqliteStore::~SqliteStore() { sqlite3_close(db_); }

Status SqliteStore::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return Fail("{}: {}", path_, msg);
  }
  return Ok();
}

Status SqliteStore::EnsureSchema() {
  std::string sql = "BEGIN;\n";
  for (const auto& t : Tables()) sql += CreateTableSql(t);
  sql +=
      "CREATE TABLE IF NOT EXISTS ingest_journal (job_key TEXT PRIMARY KEY, entry TEXT, at_ns INTEGER);\n"
      "CREATE TABLE IF NOT EXISTS ingest_claims (job_key TEXT PRIMARY KEY, owner TEXT, at_ns INTEGER);\n"
      "COMMIT;";
  return Exec(sql.c_str());
}

Result<bool> SqliteStore::HasJob(const std::string& job_key) {
  Statement s;
  if (!s.Prepare(db_, "SELECT 1 FROM ingest_journal WHERE job_key = ?")) {
    return Fail("{}: {}", path_, sqlite3_errmsg(db_));
  }
  s.BindText(1, job_key);
  int rc = sqlite3_step(s.stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Fail("{}: {}", path_, sqlite3_errmsg(db_));
  return rc == SQLITE_ROW;
}

Result<SqliteStore::Claim> SqliteStore::ClaimJob(const std::string& job_key, const std::string& owner,
                                                 std::int64_t now_ns) {
  PLASMIENT_TRY(Exec("BEGIN IMMEDIATE"));
  auto fail = [&](std::string msg) {
    (void)Exec("ROLLBACK");
    return Fail("{}: {}", path_, msg);
  };
  auto journaled = HasJob(job_key);
  if (!journaled) return fail(journaled.error().message);
  if (*journaled) {
    PLASMIENT_TRY(Exec("COMMIT"));
    return Claim::kJournaled;
  }
  bool held_by_another = false;
  {
    Statement s;  // finalized before COMMIT
    if (!s.Prepare(db_, "SELECT owner, at_ns FROM ingest_claims WHERE job_key = ?"))
      return fail(sqlite3_errmsg(db_));
    s.BindText(1, job_key);
    int rc = sqlite3_step(s.stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return fail(sqlite3_errmsg(db_));
    if (rc == SQLITE_ROW) {
      const auto* held_by = reinterpret_cast<const char*>(sqlite3_column_text(s.stmt, 0));
      std::int64_t at_ns = sqlite3_column_int64(s.stmt, 1);
      held_by_another = owner != (held_by ? held_by : "") && now_ns - at_ns < kClaimHoldNs;
    }
  }
  if (held_by_another) {
    PLASMIENT_TRY(Exec("COMMIT"));
    return Claim::kOthers;
  }
  Statement s;
  if (!s.Prepare(db_, "INSERT OR REPLACE INTO ingest_claims VALUES (?, ?, ?)"))
    return fail(sqlite3_errmsg(db_));
  s.BindText(1, job_key);
  s.BindText(2, owner);
  sqlite3_bind_int64(s.stmt, 3, now_ns);
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return fail(sqlite3_errmsg(db_));
  PLASMIENT_TRY(Exec("COMMIT"));
  return Claim::kOurs;
}

Result<std::size_t> SqliteStore::Record(const Batch& batch, const std::string& entry) {
  PLASMIENT_TRY(Exec("BEGIN IMMEDIATE"));
  auto fail = [&](std::string msg) {
    (void)Exec("ROLLBACK");
    return Fail("{}: {}", path_, msg);
  };
  // Keys already journaled are skipped whole: recording is idempotent.
  std::set<std::string> fresh;
  for (const auto& row : batch[TableId::kJobs]) {
    const auto& key = std::get<std::string>(row[kJobKeyColumn]);
    auto has = HasJob(key);
    if (!has) return fail(has.error().message);
    if (!*has) fresh.insert(key);
  }
  for (const auto& t : Tables()) {
    const auto& rows = batch[t.id];
    if (rows.empty()) continue;
    std::string sql = "INSERT INTO " + std::string(t.name) + " VALUES (";
    for (std::size_t i = 0; i < t.columns.size(); ++i) sql += i ? ",?" : "?";
    sql += ")";
    Statement s;
    if (!s.Prepare(db_, sql.c_str())) return fail(sqlite3_errmsg(db_));
    for (const auto& row : rows) {
      if (!fresh.contains(std::get<std::string>(row[kJobKeyColumn]))) continue;
      for (std::size_t i = 0; i < row.size(); ++i) {
        int col = static_cast<int>(i + 1);
        if (const auto* v = std::get_if<std::int64_t>(&row[i])) {
          sqlite3_bind_int64(s.stmt, col, *v);
        } else if (const auto* d = std::get_if<double>(&row[i])) {
          sqlite3_bind_double(s.stmt, col, *d);
        } else {
          s.BindText(col, std::get<std::string>(row[i]));
        }
      }
      if (sqlite3_step(s.stmt) != SQLITE_DONE) return fail(sqlite3_errmsg(db_));
      sqlite3_reset(s.stmt);
    }
  }
  Statement journal, unclaim;
  if (!journal.Prepare(db_, "INSERT INTO ingest_journal VALUES (?, ?, ?)") ||
      !unclaim.Prepare(db_, "DELETE FROM ingest_claims WHERE job_key = ?")) {
    return fail(sqlite3_errmsg(db_));
  }
  for (const auto& row : batch[TableId::kJobs]) {
    const auto& key = std::get<std::string>(row[kJobKeyColumn]);
    if (!fresh.contains(key)) continue;
    journal.BindText(1, key);
    journal.BindText(2, entry);
    sqlite3_bind_int64(journal.stmt, 3, std::get<std::int64_t>(row[2]));
    if (sqlite3_step(journal.stmt) != SQLITE_DONE) return fail(sqlite3_errmsg(db_));
    sqlite3_reset(journal.stmt);
    unclaim.BindText(1, key);
    if (sqlite3_step(unclaim.stmt) != SQLITE_DONE) return fail(sqlite3_errmsg(db_));
    sqlite3_reset(unclaim.stmt);
  }
  PLASMIENT_TRY(Exec("COMMIT"));
  return fresh.size();
}

std::string SqliteStore::TableName(TableId id) const { return std::string(Table(id).name); }

Status SqliteStore::Run(const SqlQuery& query, const std::function<void(std::vector<std::string>)>& columns,
                        const RowVisitor& visit) {
  Statement s;
  if (!s.Prepare(db_, query.sql.c_str())) {
    return Fail("{}: {}", path_, sqlite3_errmsg(db_));
  }
  for (const auto& p : query.params) {
    int at = sqlite3_bind_parameter_index(s.stmt, p.name.c_str());
    if (at == 0) return Fail("{}: the query has no parameter {}", path_, p.name);
    s.BindText(at, p.value);
  }
  int n = sqlite3_column_count(s.stmt);
  if (columns) {
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(std::max(n, 0)));
    for (int i = 0; i < n; ++i) names.emplace_back(sqlite3_column_name(s.stmt, i));
    columns(std::move(names));
  }
  std::vector<std::string> row(static_cast<std::size_t>(n));
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
    for (int i = 0; i < n; ++i) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s.stmt, i));
      row[static_cast<std::size_t>(i)].assign(text ? text : "");
    }
    PLASMIENT_TRY(visit(row));
  }
  if (rc != SQLITE_DONE) return Fail("{}: {}", path_, sqlite3_errmsg(db_));
  return Ok();
}

Result<QueryResult> SqliteStore::Query(const SqlQuery& query) {
  QueryResult out;
  PLASMIENT_TRY(Run(
      query, [&](std::vector<std::string> names) { out.columns = std::move(names); },
      [&](const std::vector<std::string>& row) {
        out.rows.push_back(row);
        return Ok();
      }));
  return out;
}

Status SqliteStore::ForEachRow(const SqlQuery& query, const RowVisitor& visit) {
  return Run(query, {}, visit);
}

}  // namespace plasmient::store
