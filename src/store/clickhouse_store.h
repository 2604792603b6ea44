// The fleet store: ClickHouse over its HTTP interface. Tables are ReplacingMergeTree (18.16 syntax: no
// DateTime64, no LowCardinality; times are Int64 ns); with a cluster, each table is a
// Distributed table over `<table>_local` on every shard, sharded by job_key so one job's rows
// stay together. Inserts are idempotent: keys already present in a table are filtered out, and
// a batch that reaches ClickHouse twice all the same (a lost answer, two writers at once) is read
// once: each row carries `row_index` (its position among its job's rows), the tables are
// ReplacingMergeTree ORDER BY (job_key, row_index), and every read names them FINAL.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "store/store.h"

namespace httplib {
class Client;
}

namespace plasmient::store {

struct ClickHouseOptions {
  std::string url = "http://127.0.0.1:8123";  // --clickhouse
  std::string database = "plasmient";         // --clickhouse-db
  std::string cluster;                        // --clickhouse-cluster: Distributed tables over it
  // The database of `<table>_local` on each shard: the same as `database` by default; "-" for
  // each replica's <default_database> from the cluster's configuration.
  std::string shard_database;
  double timeout_s = 10;
  // --raw-rows: `fleet` answers from the raw tables (read FINAL) instead of the rollups
  // (clickhouse_rollups.h); slow at fleet scale, the check of what the rollups hold.
  bool raw_rows = false;
  // --raw-retention-days: on servers that have TTL (19.6 and later) the raw tables are made with
  // a TTL of this many days after the analysis; 0 keeps them. Older servers are pruned by
  // `fleet --prune-older-than` (PruneRawRows).
  int raw_retention_days = 0;
};

// One cell in ClickHouse's RowBinary input format: Int64 and Float64 as 8 little-endian bytes,
// a String as its length (unsigned LEB128) and its bytes. What Insert sends: no number is
// formatted or parsed as text on either side, and no value is ever read as syntax.
void AppendRowBinaryCell(std::string& out, const Cell& cell);
// A string literal as ClickHouse reads it: quoted, with ' and \ escaped. ClickHouse 18.16 has no
// query parameters; this is the one place a value enters its SQL text.
std::string QuoteClickHouseString(std::string_view s);
// The query's text with each named parameter (":job") replaced by its quoted value; fails on a
// parameter without a value.
Result<std::string> BindClickHouseParams(const SqlQuery& query);

class ClickHouseStore final : public QueryableStore {
 public:
  static Result<std::unique_ptr<ClickHouseStore>> Open(const ClickHouseOptions& options);
  ~ClickHouseStore() override;

  // Creates the database, the tables and their rollups when missing; `local_only` creates only
  // the shard tables. A rollup made over a table that already holds rows is filled from them once.
  Status EnsureSchema(bool local_only = false);
  // Drops the raw rows of analyses before `cutoff_ns` from the tables that hold them here (the
  // tables themselves, or each `<table>_local` with a cluster): whole days, a partition at a
  // time; tables made before raw tables were partitioned delete the rows instead (a mutation).
  // The rollups keep their rows. Returns the partitions dropped.
  Result<std::size_t> PruneRawRows(std::int64_t cutoff_ns);
  // Whether a batch's rows may have reached ClickHouse before.
  enum class Sent : std::uint8_t {
    kMaybe,  // a retry, or rows of unknown history: each table is first asked which keys it holds
    kNever,  // a first attempt: that question is skipped (its IN list of every key was most of the
             // cost of an insert: docs/fleet.md, "At fleet scale")
  };
  // Inserts the rows whose job_key the table does not hold yet. Returns rows inserted.
  Result<std::size_t> Insert(const Batch& batch, Sent sent = Sent::kMaybe);

  // What a query reads: "plasmient.jobs FINAL".
  std::string TableName(TableId id) const override;
  std::string RollupName(RollupId id) const override;
  using QueryableStore::Query;
  Result<QueryResult> Query(const SqlQuery& query) override;
  Status ForEachRow(const SqlQuery& query, const RowVisitor& visit) override;
  Status Execute(const std::string& sql);

 private:
  explicit ClickHouseStore(ClickHouseOptions options);
  Result<std::string> Post(const std::string& url_query, const std::string& body);
  std::string LocalName(TableId id) const;
  std::string RollupLocalName(RollupId id) const;
  Status EnsureRollups(bool local_only);
  Status DropPresentKeys(TableId table, const std::vector<Row>& rows,
                         std::set<std::string, std::less<>>& keys);
  std::string QualifiedName(TableId id) const;  // "plasmient.jobs": what is created and inserted into
  // Fails when one of `tables` lacks row_index (made by an older Plasmient, MergeTree).
  Status CheckRowIdentity(const std::vector<std::string>& tables);

  ClickHouseOptions options_;
  std::unique_ptr<httplib::Client> client_;
};

// The TTL clause of a raw table for a server of `version` ("18.16.1", "23.8.2.7"): empty before
// 19.6 (no TTL there) or without a retention.
std::string RawTableTtlSql(std::string_view version, int retention_days);

// "http://host:port[/]" → host and port (http only; `default_port` when none is given); errors
// name the flag the URL came from.
Result<std::pair<std::string, int>> ParseHttpUrl(std::string_view url, std::string_view flag = "--clickhouse",
                                                 int default_port = 8123);
// Percent-encoding of a URL query value (RFC 3986 unreserved characters pass).
std::string UrlEncode(std::string_view s);

}  // namespace plasmient::store
