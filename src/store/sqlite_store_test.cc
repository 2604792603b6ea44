#include "store/sqlite_store.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "store/job_rows.h"
#include "store/testing/test_job.h"

namespace plasmient::store {
namespace {

std::filesystem::path TempDb(const std::string& tag) {
  auto dir =
      std::filesystem::temp_directory_path() / ("plasmient_fleet_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir / "store.sqlite";
}

Batch Rows(const std::string& key) {
  JobContext c;
  c.job_key = key;
  c.job_id = "job-" + key;
  c.at_ns = 5;
  c.host = "h";
  return BuildRows(testing::MakeJob(), c);
}

std::string Count(SqliteStore& s, const std::string& table) {
  auto r = s.Query("SELECT count(*) FROM " + table);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? r->rows.at(0).at(0) : "";
}

TEST(SqliteStoreTest, RecordingTheSameKeyTwiceCountsOnce) {
  auto path = TempDb("idem");
  auto store = SqliteStore::Open(path.string());
  ASSERT_TRUE(store) << store.error().message;
  auto& s = **store;
  EXPECT_FALSE(*s.HasJob("k1"));
  auto n = s.Record(Rows("k1"), "a.json");
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 1u);
  EXPECT_TRUE(*s.HasJob("k1"));
  EXPECT_EQ(*s.Record(Rows("k1"), "a.json"), 0u);
  EXPECT_EQ(Count(s, "jobs"), "1");
  EXPECT_EQ(Count(s, "kernel_aggregates"), "2");
  EXPECT_EQ(Count(s, "cluster_stragglers"), "1");
  // A batch of a known and a new key adds only the new one's rows.
  Batch both = Rows("k1");
  both.Append(Rows("k2"));
  EXPECT_EQ(*s.Record(both, "b.json"), 1u);
  EXPECT_EQ(Count(s, "jobs"), "2");
  EXPECT_EQ(Count(s, "rank_verdicts"), "4");
}

// Two serves on different spools sharing the store, both given one job: the first to claim it
// records it, the other is told it is another's; the first's retry (or restart) takes its claim
// again; a claim older than kClaimHoldNs is another's to take; journaling ends the claim.
TEST(SqliteStoreTest, OneServeClaimsAJobTheOtherIsToldSo) {
  auto path = TempDb("claim");
  auto a = SqliteStore::Open(path.string());
  auto b = SqliteStore::Open(path.string());
  ASSERT_TRUE(a && b);
  using Claim = SqliteStore::Claim;
  EXPECT_EQ(*(*a)->ClaimJob("k1", "node:/spool-a", 100), Claim::kOurs);
  EXPECT_EQ(*(*b)->ClaimJob("k1", "node:/spool-b", 200), Claim::kOthers);
  EXPECT_EQ(*(*a)->ClaimJob("k1", "node:/spool-a", 300), Claim::kOurs);
  EXPECT_EQ(*(*b)->ClaimJob("k1", "node:/spool-b", 300 + SqliteStore::kClaimHoldNs - 1), Claim::kOthers);
  EXPECT_EQ(*(*b)->ClaimJob("k2", "node:/spool-b", 0), Claim::kOurs);
  ASSERT_TRUE((*a)->Record(Rows("k1"), "a.json"));
  EXPECT_EQ(*(*b)->ClaimJob("k1", "node:/spool-b", 400), Claim::kJournaled);
  EXPECT_EQ(Count(**a, "ingest_claims"), "1");  // k2's, still to be recorded
  EXPECT_EQ(*(*a)->ClaimJob("k2", "node:/spool-a", SqliteStore::kClaimHoldNs), Claim::kOurs);  // k2 abandoned
}

TEST(SqliteStoreTest, ReopeningKeepsTheJournal) {
  auto path = TempDb("reopen");
  {
    auto s = SqliteStore::Open(path.string());
    ASSERT_TRUE(s);
    ASSERT_TRUE((*s)->Record(Rows("k9"), "x"));
  }
  auto s = SqliteStore::Open(path.string());
  ASSERT_TRUE(s);
  EXPECT_TRUE(*(*s)->HasJob("k9"));
  EXPECT_EQ(Count(**s, "bills"), "1");
}

TEST(SqliteStoreTest, BadQueryIsAnError) {
  auto s = SqliteStore::Open(TempDb("bad").string());
  ASSERT_TRUE(s);
  auto r = (*s)->Query("SELECT nope FROM jobs");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nope"), std::string::npos);
}

TEST(SqliteStoreTest, OpenFailsOnAFolder) {
  auto dir = TempDb("dir").parent_path();
  EXPECT_FALSE(SqliteStore::Open(dir.string()));
}

}  // namespace
}  // namespace plasmient::store
