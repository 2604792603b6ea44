#include "ingest/nsys_sqlite/nsys_strings.h"

namespace plasmient::ingest::nsys {

Result<StringIds> StringIds::Open(const Db& db, const NsysSchema& schema, StringPool& pool) {
  if (!schema.HasColumn(kStringsTable, "id") || !schema.HasColumn(kStringsTable, "value")) {
    return StringIds(std::nullopt, pool);
  }
  auto stmt = db.Prepare("SELECT value FROM StringIds WHERE id = ?1", std::string(kStringsTable));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  return StringIds(std::move(*stmt), pool);
}

Result<std::string_view> StringIds::Get(std::int64_t id) {
  if (!lookup_) return std::string_view();
  if (auto it = cache_.find(id); it != cache_.end()) return it->second;
  lookup_->Reset();
  lookup_->BindInt(1, id);
  auto row = lookup_->Step();
  if (!row) return std::unexpected(std::move(row.error()));
  std::string_view text = *row ? pool_->Get(pool_->Intern(lookup_->Text(0))) : std::string_view();
  lookup_->Reset();
  cache_.emplace(id, text);
  return text;
}

Result<std::string_view> StringIds::GetColumn(const Statement& stmt, int col) {
  if (stmt.IsNull(col)) return std::string_view();
  return Get(stmt.Int(col));
}

}  // namespace plasmient::ingest::nsys
