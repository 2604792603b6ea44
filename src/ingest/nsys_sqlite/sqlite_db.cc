#include "ingest/nsys_sqlite/sqlite_db.h"

#include <sqlite3.h>

#include <chrono>
#include <utility>

#include "base/time_units.h"

namespace plasmient::ingest::nsys {
namespace {

// How long to wait for a writer's lock before calling the file locked.
constexpr int kBusyTimeoutMs = 2000;

// SQLite's messages can quote damaged schema text: keep the error one printable line.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7F ? ' ' : (u >= 0x80 ? '?' : c);
  }
  return out;
}

std::int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Called every kProgressOps virtual-machine steps; non-zero interrupts the statement.
constexpr int kProgressOps = 100000;
int PastDeadline(void* deadline_ns) { return SteadyNowNs() > *static_cast<std::int64_t*>(deadline_ns); }

}  // namespace

std::string QuoteIdentifier(std::string_view identifier) {
  std::string out = "\"";
  for (char c : identifier) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), path_(other.path_), what_(std::move(other.what_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    path_ = other.path_;
    what_ = std::move(other.what_);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  if (rc == SQLITE_INTERRUPT) {
    return Fail("{}: reading {}: stopped at the time limit for reading one file", *path_, OneLine(what_));
  }
  return Fail("{}: reading {}: {}", *path_, OneLine(what_),
              OneLine(sqlite3_errmsg(sqlite3_db_handle(stmt_))));
}

void Statement::BindInt(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

std::int64_t Statement::IntOr(int col, std::int64_t fallback) const {
  return IsNull(col) ? fallback : Int(col);
}

double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }

std::string_view Statement::Text(int col) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (text == nullptr) return {};
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
}

Db::Db(sqlite3* db, std::string path) : db_(db), path_(std::make_unique<std::string>(std::move(path))) {}

Db::Db(Db&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      deadline_ns_(std::move(other.deadline_ns_)) {}

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    deadline_ns_ = std::move(other.deadline_ns_);
  }
  return *this;
}

Db::~Db() { sqlite3_close_v2(db_); }

Result<Db> Db::Open(const std::string& path, const DbLimits& limits) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (limits.no_follow ? SQLITE_OPEN_NOFOLLOW : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw, path);  // owns the handle even when opening failed
  if (rc != SQLITE_OK) {
    return Fail("{}: cannot open as SQLite: {}", path,
                OneLine(raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  db.deadline_ns_ =
      std::make_unique<std::int64_t>(SteadyNowNs() + std::int64_t{limits.max_seconds} * kNsPerS);
  sqlite3_progress_handler(raw, kProgressOps, &PastDeadline, db.deadline_ns_.get());
  // The first read of the schema is where encrypted, locked and damaged files show.
  auto probe = db.Prepare("SELECT count(*) FROM sqlite_master", "the schema");
  if (!probe) return std::unexpected(std::move(probe.error()));
  if (auto row = probe->Step(); !row) return std::unexpected(std::move(row.error()));
  return db;
}

Result<Statement> Db::Prepare(std::string_view sql, std::string what) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Fail("{}: reading {}: {}", *path_, OneLine(what), OneLine(sqlite3_errmsg(db_)));
  }
  return Statement(stmt, path_.get(), std::move(what));
}

Result<std::vector<std::string>> Db::TextColumn(std::string_view sql, std::string what, int col) const {
  auto stmt = Prepare(sql, std::move(what));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::vector<std::string> values;
  while (true) {
    auto row = stmt->Step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    values.emplace_back(stmt->Text(col));
  }
  return values;
}

Result<std::vector<std::string>> Db::TableNames() const {
  return TextColumn("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", "the table list", 0);
}

Result<std::vector<std::string>> Db::ViewNames() const {
  return TextColumn("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name", "the view list", 0);
}

Result<std::vector<std::string>> Db::ColumnNames(const std::string& table) const {
  return TextColumn("PRAGMA table_info(" + QuoteIdentifier(table) + ")", "the columns of " + table, 1);
}

}  // namespace plasmient::ingest::nsys
