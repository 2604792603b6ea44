// A thin, read-only RAII layer over the SQLite C API: open, prepare, step, read columns.
// Every failure becomes a one-line Error that names the file and what was being read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace plasmient::ingest::nsys {

// `identifier` in double quotes, for table and column names in SQL text.
std::string QuoteIdentifier(std::string_view identifier);

class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  // True when a row is ready, false at the end; an error names the file and `what_`.
  [[nodiscard]] Result<bool> Step();
  void BindInt(int index, std::int64_t value);  // 1-based, as SQLite counts
  void Reset();

  bool IsNull(int col) const;
  std::int64_t Int(int col) const;
  // `fallback` when NULL.
  std::int64_t IntOr(int col, std::int64_t fallback) const;
  double Double(int col) const;
  std::string_view Text(int col) const;  // valid until the next Step/Reset

 private:
  friend class Db;
  Statement(sqlite3_stmt* stmt, const std::string* path, std::string what)
      : stmt_(stmt), path_(path), what_(std::move(what)) {}
  sqlite3_stmt* stmt_ = nullptr;
  const std::string* path_ = nullptr;  // owned by the Db, which outlives its statements
  std::string what_;
};

struct DbLimits {
  bool no_follow = false;  // refuse a symbolic link as the file itself
  int max_seconds = 600;   // every statement run on the connection, together; then interrupted
};

class Db {
 public:
  // Opens read-only. Fails when the file is missing, not SQLite, encrypted or locked.
  [[nodiscard]] static Result<Db> Open(const std::string& path, const DbLimits& limits = {});
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  ~Db();

  // `what` names the reading in error messages, e.g. "CUPTI_ACTIVITY_KIND_KERNEL".
  [[nodiscard]] Result<Statement> Prepare(std::string_view sql, std::string what) const;
  // Tables only: a view where a table is expected is refused by the caller (a view can be a
  // recursive query that never ends).
  [[nodiscard]] Result<std::vector<std::string>> TableNames() const;
  [[nodiscard]] Result<std::vector<std::string>> ViewNames() const;
  [[nodiscard]] Result<std::vector<std::string>> ColumnNames(const std::string& table) const;
  const std::string& path() const { return *path_; }

 private:
  Db(sqlite3* db, std::string path);
  // Column `col` of every row of `sql`, as text.
  Result<std::vector<std::string>> TextColumn(std::string_view sql, std::string what, int col) const;
  sqlite3* db_ = nullptr;
  std::unique_ptr<std::string> path_;  // stable address for statements' messages
  // When reading must stop (steady clock, ns); a stable address for SQLite's progress handler.
  std::unique_ptr<std::int64_t> deadline_ns_;
};

}  // namespace plasmient::ingest::nsys
