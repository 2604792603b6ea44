// What `plasmient fleet` asks of a store, SQLite or ClickHouse: SQL in, text cells out.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "store/schema.h"

namespace plasmient::store {

enum class RollupId : std::uint8_t;  // clickhouse_rollups.h

// A query and the text values of its named parameters (":job"): values never enter the SQL text
// by quoting in the caller; each store binds them (SQLite) or escapes them once (ClickHouse).
struct SqlParam {
  std::string name;  // ":job"
  std::string value;
};
struct SqlQuery {
  std::string sql;
  std::vector<SqlParam> params;
};

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

class QueryableStore {
 public:
  virtual ~QueryableStore() = default;
  // The name to query a table by ("jobs", or "plasmient.jobs" over a Distributed table).
  virtual std::string TableName(TableId id) const = 0;
  // The rollup to answer a question from ("plasmient.kernels_by_hour"); empty where the questions
  // are answered from the raw rows (SQLite; ClickHouse with --raw-rows).
  virtual std::string RollupName(RollupId /*id*/) const { return {}; }
  virtual Result<QueryResult> Query(const SqlQuery& query) = 0;
  Result<QueryResult> Query(const std::string& sql) { return Query(SqlQuery{sql, {}}); }
  // The rows one at a time, as they arrive (memory stays bounded by a row, whatever the result's
  // size); a visitor's failure stops the query and is returned.
  using RowVisitor = std::function<Status(const std::vector<std::string>& cells)>;
  virtual Status ForEachRow(const SqlQuery& query, const RowVisitor& visit) = 0;
};

}  // namespace plasmient::store
