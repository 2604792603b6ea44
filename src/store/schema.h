// The fleet store's one schema: twelve tables, each row a flat tuple of Int64, Float64 and
// String cells. SQLite and ClickHouse (18.16 and current) are both created and filled from it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace plasmient::store {

enum class ColumnType : std::uint8_t { kInt, kFloat, kString };

struct Column {
  std::string_view name;
  ColumnType type;
};

enum class TableId : std::uint8_t {
  kJobs,
  kSteps,
  kRankVerdicts,
  kKernelAggregates,
  kOpAggregates,
  kRankCollectives,
  kStragglers,
  kBills,
  kLayerTypes,
  kClusterRanks,
  kClusterSteps,
  kLeverProjections,
  kCount
};
inline constexpr std::size_t kTableCount = static_cast<std::size_t>(TableId::kCount);

struct TableSpec {
  TableId id;
  std::string_view name;            // "jobs", "kernel_aggregates", ...
  std::span<const Column> columns;  // the first four are always job_key, job_id, at_ns, host
};

std::span<const TableSpec> Tables();
const TableSpec& Table(TableId id);

// The columns every table starts with: rows of one analysis share job_key (a content hash
// of its traces), which makes every insert idempotent.
inline constexpr std::size_t kJobKeyColumn = 0;
inline constexpr std::size_t kAtNsColumn = 2;  // when the analysis was made: one value per job_key

using Cell = std::variant<std::int64_t, double, std::string>;
using Row = std::vector<Cell>;

// Rows of one or more analyses, per table.
struct Batch {
  std::array<std::vector<Row>, kTableCount> rows;

  std::vector<Row>& operator[](TableId id) { return rows[static_cast<std::size_t>(id)]; }
  const std::vector<Row>& operator[](TableId id) const { return rows[static_cast<std::size_t>(id)]; }
  std::size_t RowCount() const;
  void Append(Batch&& other);
};

// A Float64 as the stores keep it: NaN and infinities become 0 (ClickHouse 18.16 reads them
// as text only in some forms, and a sum over them says nothing).
double StoredDouble(double v);
// ClickHouse's TabSeparated text for one cell (escapes \t, \n, \\); also the outbox format.
void AppendTsvCell(std::string& out, const Cell& cell);
// Parses one TabSeparated line back into cells of the table's types.
bool ParseTsvRow(std::string_view line, const TableSpec& table, Row& row);

}  // namespace plasmient::store
