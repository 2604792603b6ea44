#include "ingest/nsys_sqlite/nsys_parse_context.h"

#include <limits>

namespace plasmient::ingest::nsys {

Result<std::string> OrderByStart(const ParseContext& ctx, std::string_view table) {
  auto stmt = ctx.db.Prepare("SELECT start FROM " + QuoteIdentifier(table), std::string(table));
  if (!stmt) return std::unexpected(std::move(stmt.error()));
  std::int64_t previous = std::numeric_limits<std::int64_t>::min();
  while (true) {
    auto row = stmt->Step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return std::string();
    std::int64_t start = stmt->IntOr(0, 0);  // as the parsers read it
    if (start < previous) return std::string(" ORDER BY start");
    previous = start;
  }
}

}  // namespace plasmient::ingest::nsys
