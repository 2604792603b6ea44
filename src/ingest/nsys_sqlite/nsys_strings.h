// StringIds lookups: names in nsys tables are ids into StringIds. Only the ids a reader asks
// for are fetched, each once, and their text lives in the trace's StringPool.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "base/result.h"
#include "base/string_pool.h"
#include "ingest/nsys_sqlite/nsys_schema.h"
#include "ingest/nsys_sqlite/sqlite_db.h"

namespace plasmient::ingest::nsys {

class StringIds {
 public:
  // Without a StringIds table every lookup answers "" (counted once by the caller).
  [[nodiscard]] static Result<StringIds> Open(const Db& db, const NsysSchema& schema, StringPool& pool);

  // The text of `id`, "" for NULL or unknown ids. The view lives as long as the pool.
  [[nodiscard]] Result<std::string_view> Get(std::int64_t id);
  // As Get, for a nullable column of `stmt`.
  [[nodiscard]] Result<std::string_view> GetColumn(const Statement& stmt, int col);

 private:
  StringIds(std::optional<Statement> lookup, StringPool& pool) : lookup_(std::move(lookup)), pool_(&pool) {}
  std::optional<Statement> lookup_;
  StringPool* pool_;
  std::unordered_map<std::int64_t, std::string_view> cache_;
};

}  // namespace plasmient::ingest::nsys
