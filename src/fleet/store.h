// What `plasmient fleet` asks of a store, SQLite or ClickHouse: SQL in, text cells out.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "fleet/schema.h"

namespace plasmient::fleet {

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

class QueryableStore {
 public:
  virtual ~QueryableStore() = default;
  // The name to query a table by ("jobs", or "plasmient.jobs" over a Distributed table).
  virtual std::string TableName(TableId id) const = 0;
  virtual Result<QueryResult> Query(const std::string& sql) = 0;
};

}  // namespace plasmient::fleet
