#include "store/clickhouse_outbox.h"

#include <unistd.h>

#include <limits>

#include <gtest/gtest.h>

#include "store/job_rows.h"
#include "store/testing/test_job.h"

namespace plasmient::store {
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

// Hand-built cells against the bytes ClickHouse's RowBinary expects (Int64 and Float64 little-
// endian, String as an unsigned LEB128 length and the bytes untouched). The schema has no
// Nullable, Date or DateTime column: times are Int64 nanoseconds (at_ns), so none is encoded.
std::string RowBinary(const Cell& cell) {
  std::string out;
  AppendRowBinaryCell(out, cell);
  return out;
}

TEST(ClickHouseStoreTest, RowBinaryIntegersAtTheirLimits) {
  EXPECT_EQ(RowBinary(std::int64_t{0}), std::string(8, '\0'));
  EXPECT_EQ(RowBinary(std::int64_t{0x0102030405060708}), "\x08\x07\x06\x05\x04\x03\x02\x01");
  EXPECT_EQ(RowBinary(std::numeric_limits<std::int64_t>::max()), "\xff\xff\xff\xff\xff\xff\xff\x7f");
  EXPECT_EQ(RowBinary(std::numeric_limits<std::int64_t>::min()), std::string("\0\0\0\0\0\0\0\x80", 8));
  // A time as the tables keep it: 2026-12-01T00:00:00Z in ns since the epoch, 0x18EC_F827_830C_0000.
  EXPECT_EQ(RowBinary(std::int64_t{1'796'083'200'000'000'000}),
            std::string("\0\0\x0c\x83\x27\xf8\xec\x18", 8));
}

TEST(ClickHouseStoreTest, RowBinaryFloatsKeepEveryFiniteBitAndStoreNonFiniteAsZero) {
  EXPECT_EQ(RowBinary(-0.0), std::string("\0\0\0\0\0\0\0\x80", 8));  // the sign stays
  EXPECT_EQ(RowBinary(0.1), "\x9a\x99\x99\x99\x99\x99\xb9\x3f");     // 0x3FB999999999999A
  EXPECT_EQ(RowBinary(std::numeric_limits<double>::denorm_min()), std::string("\x01\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(RowBinary(std::numeric_limits<double>::max()), "\xff\xff\xff\xff\xff\xff\xef\x7f");
  // NaN and the infinities as the stores keep them (StoredDouble): 0, as the TabSeparated outbox
  // file writes them, so a retried row is the row first sent.
  for (double v : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::signaling_NaN()}) {
    EXPECT_EQ(RowBinary(v), std::string(8, '\0')) << v;
    std::string tsv;
    AppendTsvCell(tsv, Cell{v});
    EXPECT_EQ(tsv, "0") << v;
  }
}

TEST(ClickHouseStoreTest, RowBinaryStringsAreTheirBytesAfterTheirLength) {
  // Quotes, backslashes, tabs, newlines, NUL and carriage returns: no escaping, since nothing
  // reads them as syntax.
  const std::string hostile("it's \"q\"\\\n\t\r\0end", 16);
  EXPECT_EQ(RowBinary(hostile), std::string(1, '\x10') + hostile);
  // UTF-8: the length counts bytes, not characters ("µs ü 日本": 2+1+1+2+1+6 = 13 bytes).
  const std::string utf8 = "\xc2\xb5s \xc3\xbc \xe6\x97\xa5\xe6\x9c\xac";
  ASSERT_EQ(utf8.size(), 13u);
  EXPECT_EQ(RowBinary(utf8), "\x0d" + utf8);
  // The length's one-byte limit and the first two-byte lengths.
  EXPECT_EQ(RowBinary(std::string(127, 'a')).substr(0, 2),
            "\x7f"
            "a");
  EXPECT_EQ(RowBinary(std::string(128, 'a')).substr(0, 3),
            "\x80\x01"
            "a");
  EXPECT_EQ(RowBinary(std::string(16'384, 'a')).substr(0, 4), std::string("\x80\x80\x01"
                                                                          "a"));
  EXPECT_EQ(RowBinary(std::string(16'384, 'a')).size(), 16'387u);
}

// A row is its cells one after another, with nothing between them or after the last.
TEST(ClickHouseStoreTest, RowBinaryRowIsItsCellsInOrder) {
  std::string row;
  for (const Cell& c : {Cell{std::string("k")}, Cell{std::int64_t{1}}, Cell{2.0}})
    AppendRowBinaryCell(row, c);
  EXPECT_EQ(row, std::string("\x01k"
                             "\x01\0\0\0\0\0\0\0"
                             "\0\0\0\0\0\0\0\x40",
                             18));
}

}  // namespace
}  // namespace plasmient::store
