// The embedded store: one SQLite file (WAL) holding the schema's tables and the ingest journal.
// Recording an analysis and journaling its key happen in one transaction, so a crash leaves
// either both or neither.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "store/store.h"

struct sqlite3;

namespace plasmient::store {

class SqliteStore final : public QueryableStore {
 public:
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path);
  ~SqliteStore() override;

  // True when an analysis with this key is already recorded (journaled).
  Result<bool> HasJob(const std::string& job_key);
  // Before a serve writes an analysis to either store it claims the key in this store's
  // `ingest_claims`, in one transaction with the journal's check: two serves on different spools
  // sharing one store, both given one job, record it once (the one that claims it first; the
  // other moves its copy on). `owner` names the claimant (its host and spool); its own claim is
  // taken again on a retry or after a restart (and its time renewed), another's once it is older
  // than kClaimHoldNs (its serve died for good). Record removes the claims of the keys it journals.
  enum class Claim { kOurs, kOthers, kJournaled };
  static constexpr std::int64_t kClaimHoldNs = 3600'000'000'000;
  Result<Claim> ClaimJob(const std::string& job_key, const std::string& owner, std::int64_t now_ns);
  // Inserts the rows of every key in the batch not yet journaled, and journals those keys with
  // `entry` (the spool entry they came from). Returns how many keys were new.
  Result<std::size_t> Record(const Batch& batch, const std::string& entry);

  std::string TableName(TableId id) const override;
  using QueryableStore::Query;
  Result<QueryResult> Query(const SqlQuery& query) override;
  Status ForEachRow(const SqlQuery& query, const RowVisitor& visit) override;

 private:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const char* sql);
  Status EnsureSchema();
  Status Run(const SqlQuery& query, const std::function<void(std::vector<std::string>)>& columns,
             const RowVisitor& visit);

  sqlite3* db_;
  std::string path_;
};

}  // namespace plasmient::store
