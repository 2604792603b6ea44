// The outbox's retry path against a ClickHouse HTTP endpoint kept in memory: a send that fails
// midway (after some tables' INSERTs landed, or with the rows kept and the answer lost) is sent
// again, and every row lands once.
#include <unistd.h>

#include <bit>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "store/clickhouse_outbox.h"
#include "store/job_rows.h"
#include "store/testing/test_job.h"

namespace plasmient::store {
namespace {
namespace fs = std::filesystem;

// Reads back what AppendRowBinaryCell wrote, column by column as the table declares them.
class RowBinaryReader {
 public:
  explicit RowBinaryReader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ == data_.size(); }

  // One row of `table`, then its row_index; false when the bytes end early.
  bool ReadRow(const TableSpec& table, Row& row, std::int64_t& row_index) {
    row.clear();
    for (const auto& c : table.columns) {
      Cell cell;
      if (!ReadCell(c.type, cell)) return false;
      row.push_back(std::move(cell));
    }
    Cell index;
    if (!ReadCell(ColumnType::kInt, index)) return false;
    row_index = std::get<std::int64_t>(index);
    return true;
  }

  bool ReadCell(ColumnType type, Cell& cell) {
    if (type == ColumnType::kString) {
      std::size_t n = 0;
      for (int shift = 0;; shift += 7) {
        if (pos_ == data_.size() || shift > 63) return false;
        auto byte = static_cast<unsigned char>(data_[pos_++]);
        n |= static_cast<std::size_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) break;
      }
      if (data_.size() - pos_ < n) return false;
      cell = std::string(data_.substr(pos_, n));
      pos_ += n;
      return true;
    }
    if (data_.size() - pos_ < 8) return false;
    std::uint64_t bits = 0;
    for (int i = 7; i >= 0; --i) bits = bits << 8 | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += 8;
    if (type == ColumnType::kInt) {
      cell = static_cast<std::int64_t>(bits);
    } else {
      cell = std::bit_cast<double>(bits);
    }
    return true;
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

// What ClickHouseStore sends and asks, answered in memory: each INSERT's RowBinary is decoded
// with its table's columns and kept; the key check answers from what is kept; the schema
// statements succeed. FailInserts makes the next INSERTs fail, with or without their rows kept
// (a server that stored them and whose answer was lost).
class FakeClickHouse {
 public:
  struct StoredRow {
    Row cells;
    std::int64_t row_index;
  };

  FakeClickHouse() {
    server_.Post("/", [this](const httplib::Request& req, httplib::Response& res) { Answer(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    // Bound and listening already: connections wait in the backlog until the thread accepts them.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeClickHouse() {
    server_.stop();
    thread_.join();
  }

  std::unique_ptr<ClickHouseStore> Store() const {
    ClickHouseOptions o;
    o.url = "http://127.0.0.1:" + std::to_string(port_);
    o.timeout_s = 5;
    return std::move(*ClickHouseStore::Open(o));
  }

  // The INSERTs after the next `skip` fail, `count` of them; `keep` stores their rows first.
  void FailInserts(int skip, int count, bool keep) {
    std::lock_guard lock(mu_);
    fail_skip_ = skip;
    fail_count_ = count;
    fail_keep_ = keep;
  }

  std::vector<StoredRow> Rows(TableId id) {
    std::lock_guard lock(mu_);
    return tables_[std::string(Table(id).name)];
  }
  int key_checks() {
    std::lock_guard lock(mu_);
    return key_checks_;
  }
  int failed_inserts() {
    std::lock_guard lock(mu_);
    return failed_inserts_;
  }

 private:
  // "INSERT INTO db.name (...)" or "... FROM db.name WHERE" → the table spec named.
  static const TableSpec* TableAfter(std::string_view sql, std::string_view word) {
    auto at = sql.find(word);
    if (at == std::string_view::npos) return nullptr;
    auto name = sql.substr(at + word.size());
    name = name.substr(name.find('.') + 1);
    name = name.substr(0, name.find_first_of(" ("));
    for (const auto& t : Tables()) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  void Answer(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mu_);
    const std::string sql = req.has_param("query") ? req.get_param_value("query") : req.body;
    if (sql.starts_with("INSERT INTO ") && sql.ends_with("FORMAT RowBinary"))
      return Insert(sql, req.body, res);
    if (sql.starts_with("SELECT DISTINCT job_key FROM ")) {
      ++key_checks_;
      const TableSpec* t = TableAfter(sql, " FROM ");
      if (!t) return Refuse(res, "unknown table in " + sql);
      std::set<std::string> keys;
      for (const auto& r : tables_[std::string(t->name)]) keys.insert(std::get<std::string>(r.cells[0]));
      std::string body = "job_key\n";
      for (const auto& k : keys) body += k + "\n";
      res.set_content(body, "text/tab-separated-values");
      return;
    }
    if (sql.starts_with("EXISTS TABLE ")) return res.set_content("result\n1\n", "text/tab-separated-values");
    if (sql.starts_with("SELECT table FROM system.columns"))
      return res.set_content("table\n", "text/tab-separated-values");
    if (sql.starts_with("CREATE ")) return res.set_content("", "text/plain");
    Refuse(res, "unexpected statement: " + sql);
  }

  void Insert(const std::string& sql, const std::string& body, httplib::Response& res) {
    const TableSpec* t = TableAfter(sql, "INSERT INTO ");
    if (!t) return Refuse(res, "unknown table in " + sql);
    bool fail = false;
    if (fail_skip_ > 0) {
      --fail_skip_;
    } else if (fail_count_ > 0) {
      --fail_count_;
      fail = true;
      ++failed_inserts_;
      if (!fail_keep_) return Refuse(res, "Code: 210. Connection reset by peer (injected)");
    }
    std::vector<StoredRow> rows;
    RowBinaryReader in(body);
    while (!in.done()) {
      StoredRow r;
      if (!in.ReadRow(*t, r.cells, r.row_index))
        return Refuse(res, "Code: 33. Cannot read all data (RowBinary)");
      rows.push_back(std::move(r));
    }
    auto& stored = tables_[std::string(t->name)];
    stored.insert(stored.end(), rows.begin(), rows.end());
    if (fail) return Refuse(res, "Code: 209. Timeout exceeded while writing the answer (injected)");
    res.set_content("", "text/plain");
  }

  static void Refuse(httplib::Response& res, const std::string& message) {
    res.status = 500;
    res.set_content(message, "text/plain");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::map<std::string, std::vector<StoredRow>> tables_;
  int fail_skip_ = 0, fail_count_ = 0, key_checks_ = 0, failed_inserts_ = 0;
  bool fail_keep_ = false;
};

Batch Rows(const std::string& key, std::int64_t at_ns) {
  JobContext c;
  c.job_key = key;
  c.job_id = "j'\"\\\n\tü";
  c.at_ns = at_ns;
  c.host = "h";
  return BuildRows(testing::MakeJob(), c);
}

// The rows `batch` should leave in each table, row_index included, as the outbox's file holds
// them (read back from the outbox's text, so floats are what it kept).
void ExpectEachRowOnce(FakeClickHouse& ch, const Batch& batch) {
  auto kept = ClickHouseOutbox::Deserialize(ClickHouseOutbox::Serialize(batch), "expected");
  ASSERT_TRUE(kept) << kept.error().message;
  std::size_t tables_with_rows = 0;
  for (const auto& t : Tables()) {
    std::map<std::pair<std::string, std::int64_t>, Row> want;
    std::map<std::string, std::int64_t> next_index;
    for (const auto& r : (*kept)[t.id]) {
      const auto& key = std::get<std::string>(r[kJobKeyColumn]);
      want[{key, next_index[key]++}] = r;
    }
    std::map<std::pair<std::string, std::int64_t>, int> seen;
    for (const auto& r : ch.Rows(t.id)) {
      std::pair id{std::get<std::string>(r.cells[kJobKeyColumn]), r.row_index};
      EXPECT_EQ(++seen[id], 1) << t.name << ": " << id.first << " row " << id.second << " stored twice";
      auto w = want.find(id);
      if (w == want.end()) {
        ADD_FAILURE() << t.name << ": " << id.first << " row " << id.second << " was never sent";
        continue;
      }
      EXPECT_EQ(r.cells, w->second) << t.name << ": " << id.first << " row " << id.second;
    }
    EXPECT_EQ(seen.size(), want.size()) << t.name << ": rows lost";
    if (!want.empty()) ++tables_with_rows;
  }
  EXPECT_GE(tables_with_rows, 5u);  // the job touches most tables: a failure midway leaves some sent
}

fs::path FreshDir(std::string_view name) {
  fs::path dir = fs::temp_directory_path() / fmt::format("plasmient_{}_{}", name, ::getpid());
  fs::remove_all(dir);
  return dir;
}

// Two analyses' rows, interleaved in every table: each row's row_index still counts its own
// job_key's rows in batch order.
TEST(ClickHouseRetryTest, RowBinaryReadsBackEveryTableOfTwoInterleavedJobs) {
  FakeClickHouse ch;
  Batch k0 = Rows("k0", 7), k1 = Rows("k1", 9), b;
  for (const auto& t : Tables()) {
    for (std::size_t i = 0; i < std::max(k0[t.id].size(), k1[t.id].size()); ++i) {
      if (i < k0[t.id].size()) b[t.id].push_back(k0[t.id][i]);
      if (i < k1[t.id].size()) b[t.id].push_back(k1[t.id][i]);
    }
  }
  auto store = ch.Store();
  auto n = store->Insert(b, ClickHouseStore::Sent::kNever);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, b.RowCount());
  EXPECT_EQ(ch.key_checks(), 0);  // a first send asks nothing
  ExpectEachRowOnce(ch, b);
}

// The outbox's send fails at its third table's INSERT (the first two landed), with or without
// the failing table's rows kept by the server; the next send lands the rest, and only the rest.
void SendFailingMidway(bool kept_before_failing) {
  FakeClickHouse ch;
  fs::path dir = FreshDir(kept_before_failing ? "retry_kept" : "retry_lost");
  Batch all = Rows("k0", 7);
  all.Append(Rows("k1", 9));
  {
    ClickHouseOutbox box(dir, 1 << 20, ch.Store());
    ASSERT_TRUE(box.Open());
    ASSERT_TRUE(*box.Put("k0", Rows("k0", 7)));
    ASSERT_TRUE(*box.Put("k1", Rows("k1", 9)));
    ch.FailInserts(2, 1, kept_before_failing);
    EXPECT_FALSE(box.Flush());
    EXPECT_EQ(ch.failed_inserts(), 1);
    EXPECT_EQ(ch.key_checks(), 0);  // the first send of these files
    EXPECT_EQ(box.counters().send_failures, 1);
    EXPECT_EQ(box.counters().pending_files, 2);  // nothing deleted: the files wait for the retry

    auto flushed = box.Flush();
    ASSERT_TRUE(flushed) << flushed.error().message;
    EXPECT_GT(ch.key_checks(), 0);  // the retry asks which keys each table holds
    EXPECT_EQ(box.counters().pending_files, 0);
    EXPECT_EQ(box.counters().sent_jobs, 2);
    // Rows inserted by the retry: the tables the failed send did not reach.
    EXPECT_LT(box.counters().sent_rows, static_cast<std::int64_t>(all.RowCount()));
    EXPECT_GT(box.counters().sent_rows, 0);
  }
  ExpectEachRowOnce(ch, all);
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().extension(), ".sent") << e.path();
  fs::remove_all(dir);
}

TEST(ClickHouseRetryTest, SendFailingMidwayIsRetriedAndEachRowLandsOnce) { SendFailingMidway(false); }

TEST(ClickHouseRetryTest, SendWhoseAnswerIsLostIsRetriedAndEachRowLandsOnce) { SendFailingMidway(true); }

// Files a previous run left may have been sent already (it may have died mid-send): the next
// run asks before sending them, and rows already there are not sent again.
TEST(ClickHouseRetryTest, FilesAPreviousRunLeftAreCheckedFirst) {
  FakeClickHouse ch;
  fs::path dir = FreshDir("retry_reopen");
  {
    ClickHouseOptions unreachable;
    unreachable.url = "http://127.0.0.1:1";
    ClickHouseOutbox box(dir, 1 << 20, std::move(*ClickHouseStore::Open(unreachable)));
    ASSERT_TRUE(box.Open());
    ASSERT_TRUE(*box.Put("k0", Rows("k0", 7)));
    ASSERT_TRUE(*box.Put("k1", Rows("k1", 9)));
  }
  ASSERT_TRUE(ch.Store()->Insert(Rows("k0", 7), ClickHouseStore::Sent::kNever));  // k0 landed before
  ClickHouseOutbox again(dir, 1 << 20, ch.Store());
  ASSERT_TRUE(again.Open());
  auto flushed = again.Flush();
  ASSERT_TRUE(flushed) << flushed.error().message;
  EXPECT_GT(ch.key_checks(), 0);
  EXPECT_EQ(again.counters().sent_rows, static_cast<std::int64_t>(Rows("k1", 9).RowCount()));
  Batch all = Rows("k0", 7);
  all.Append(Rows("k1", 9));
  ExpectEachRowOnce(ch, all);
  fs::remove_all(dir);
}

// Issue 36: while the SQLite write kept failing (a locked store, a full disk) each retry wrote a
// new outbox file, so ClickHouse's rollups counted the job 3 to 13 times. A retry now rewrites
// the key's one file, and a key already sent is not sent again, in this run or the next.
TEST(ClickHouseRetryTest, RetriesOfOneJobReachClickHouseOnce) {
  FakeClickHouse ch;
  fs::path dir = FreshDir("retry_once");
  {
    ClickHouseOutbox box(dir, 1 << 20, ch.Store());
    ASSERT_TRUE(box.Open());
    for (int retry = 0; retry < 3; ++retry) ASSERT_TRUE(*box.Put("k0", Rows("k0", 7)));
    EXPECT_EQ(box.counters().pending_files, 1);
    EXPECT_EQ(box.counters().pending_bytes,
              static_cast<std::int64_t>(ClickHouseOutbox::Serialize(Rows("k0", 7)).size()));
    ASSERT_TRUE(box.Flush());
    for (int retry = 0; retry < 3; ++retry) ASSERT_TRUE(*box.Put("k0", Rows("k0", 7)));  // after the send
    EXPECT_EQ(box.counters().pending_files, 0);
    EXPECT_EQ(box.counters().already_sent, 3);
    ASSERT_TRUE(box.Flush());
  }
  {
    ClickHouseOutbox restarted(dir, 1 << 20, ch.Store());  // kill -9 and a restart before SQLite journaled it
    ASSERT_TRUE(restarted.Open());
    ASSERT_TRUE(*restarted.Put("k0", Rows("k0", 7)));
    ASSERT_TRUE(restarted.Flush());
    EXPECT_EQ(restarted.counters().sent_jobs, 0);
  }
  ExpectEachRowOnce(ch, Rows("k0", 7));
  EXPECT_EQ(ch.Rows(TableId::kJobs).size(), 1u);
  fs::remove_all(dir);
}

// A run killed after its send and before it removed the file: the next run sees the mark and
// drops the file unsent.
TEST(ClickHouseRetryTest, AFileBesideItsSentMarkIsNotSentAgain) {
  FakeClickHouse ch;
  fs::path dir = FreshDir("retry_marked");
  fs::create_directories(dir);
  ASSERT_TRUE(ch.Store()->Insert(Rows("k0", 7), ClickHouseStore::Sent::kNever));
  { std::ofstream(dir / "k0.tsv") << ClickHouseOutbox::Serialize(Rows("k0", 7)); }
  { std::ofstream(dir / "k0.sent"); }
  ClickHouseOutbox box(dir, 1 << 20, ch.Store());
  ASSERT_TRUE(box.Open());
  EXPECT_EQ(box.counters().pending_files, 0);
  ASSERT_TRUE(box.Flush());
  EXPECT_EQ(ch.Rows(TableId::kJobs).size(), 1u);
  EXPECT_FALSE(fs::exists(dir / "k0.tsv"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::store
