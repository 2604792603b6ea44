#include "fleet/clickhouse_outbox.h"

#include <unistd.h>

#include <limits>

#include <gtest/gtest.h>

#include "fleet/job_rows.h"
#include "fleet/test_job.h"

namespace plasmient::fleet {
namespace {
namespace fs = std::filesystem;

Batch Rows(const std::string& key) {
  JobContext c;
  c.job_key = key;
  c.job_id = "j\tx";
  c.at_ns = 7;
  c.host = "h";
  return BuildRows(testing::MakeJob(), c);
}

TEST(ClickHouseOutboxTest, SerializeRoundTrip) {
  Batch b = Rows("k");
  auto back = ClickHouseOutbox::Deserialize(ClickHouseOutbox::Serialize(b), "f");
  ASSERT_TRUE(back) << back.error().message;
  for (const auto& t : Tables()) EXPECT_EQ((*back)[t.id], b[t.id]) << t.name;
}

TEST(ClickHouseOutboxTest, TornOrForeignTextIsAnErrorWithItsOffset) {
  auto torn = ClickHouseOutbox::Deserialize("@jobs\nabc", "f");
  ASSERT_FALSE(torn);
  EXPECT_NE(torn.error().message.find("byte 6"), std::string::npos) << torn.error().message;
  EXPECT_FALSE(ClickHouseOutbox::Deserialize("@nope\n", "f"));
  EXPECT_FALSE(ClickHouseOutbox::Deserialize("x\ty\n", "f"));
}

TEST(ClickHouseOutboxTest, BoundedAndCountsOverflowAndSurvivesReopen) {
  fs::path dir = fs::temp_directory_path() / ("plasmient_outbox_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto size = static_cast<std::int64_t>(ClickHouseOutbox::Serialize(Rows("k0")).size());
  ClickHouseOptions o;
  o.url = "http://127.0.0.1:1";  // nothing listens: rows must wait
  {
    ClickHouseOutbox box(dir, 2 * size + 10, std::move(*ClickHouseStore::Open(o)));
    ASSERT_TRUE(box.Open());
    EXPECT_TRUE(*box.Put("k0", Rows("k0")));
    EXPECT_TRUE(*box.Put("k1", Rows("k1")));
    EXPECT_FALSE(*box.Put("k2", Rows("k2")));
    EXPECT_EQ(box.counters().overflow_jobs, 1);
    EXPECT_EQ(box.counters().pending_files, 2);
    EXPECT_FALSE(box.Flush());  // unreachable: nothing is deleted
  }
  ClickHouseOutbox again(dir, 2 * size + 10, std::move(*ClickHouseStore::Open(o)));
  ASSERT_TRUE(again.Open());
  EXPECT_EQ(again.counters().pending_files, 2);
  EXPECT_EQ(again.counters().pending_bytes, 2 * size);
  fs::remove_all(dir);
}

TEST(ClickHouseStoreTest, ParseHttpUrl) {
  auto a = ParseHttpUrl("http://ch.example:9123/");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, "ch.example");
  EXPECT_EQ(a->second, 9123);
  EXPECT_EQ(ParseHttpUrl("http://localhost")->second, 8123);
  EXPECT_FALSE(ParseHttpUrl("https://x"));
  EXPECT_FALSE(ParseHttpUrl("http://x:99999"));
  EXPECT_FALSE(ParseHttpUrl("http://:80"));
}

TEST(ClickHouseStoreTest, RowBinaryCells) {
  std::string out;
  AppendRowBinaryCell(out, Cell{std::int64_t{-2}});
  EXPECT_EQ(out, std::string("\xfe\xff\xff\xff\xff\xff\xff\xff", 8));
  out.clear();
  AppendRowBinaryCell(out, Cell{1.5});  // 0x3FF8000000000000
  EXPECT_EQ(out, std::string("\0\0\0\0\0\0\xf8\x3f", 8));
  out.clear();
  AppendRowBinaryCell(out, Cell{std::numeric_limits<double>::quiet_NaN()});  // stored as 0
  EXPECT_EQ(out, std::string(8, '\0'));
  out.clear();
  AppendRowBinaryCell(out, Cell{std::string("a'\t\\")});  // bytes as they are, after their length
  EXPECT_EQ(out, std::string("\x04"
                             "a'\t\\"));
  out.clear();
  AppendRowBinaryCell(out, Cell{std::string(300, 'x')});  // 300 = 0b10'0101100: two length bytes
  EXPECT_EQ(out.substr(0, 2), "\xac\x02");
  EXPECT_EQ(out.size(), 302u);
  out.clear();
  AppendRowBinaryCell(out, Cell{std::string()});
  EXPECT_EQ(out, std::string(1, '\0'));
}

}  // namespace
}  // namespace plasmient::fleet
