// Hostile inputs for the readers (docs/fleet.md, "Hostile input"): each generated here, each read in
// a child under an address-space and CPU limit, each expected to fail with one line, fast.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ingest/native/native_reader.h"
#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"
#include "ingest/read_trace.h"
#include "ingest/testing/kineto_json_test_util.h"
#include "ingest/testing/native_test_file.h"
#include "ingest/testing/nsys_test_db.h"
#include "tests/hostile/limited_child.h"

namespace plasmient {
namespace {
namespace fs = std::filesystem;
using plasmient::testing::RunLimited;

constexpr std::int64_t kMemoryMb = 1024;
constexpr int kCpuSeconds = 20;

// gzip of `head`, `repeat` copies of `body`, then `tail`: concatenated members (which readers
// take as one stream), so that hundreds of MB are compressed once, not byte by byte.
std::string Gzip(std::string_view head, std::string_view body, std::size_t repeat, std::string_view tail) {
  std::string member = ingest::testing::Gzip(body);
  std::string out = ingest::testing::Gzip(head);
  for (std::size_t i = 0; i < repeat; ++i) out += member;
  return out + ingest::testing::Gzip(tail);
}

std::string WriteTemp(const std::string& name, std::string_view bytes) {
  std::string path = (fs::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)).string();
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Reads `path` in a limited child; the child exits 0 when the read fails with `expected` in
// its message.
void ExpectReadFails(const std::string& path, const std::string& expected,
                     const ingest::IngestOptions& options = {}) {
  auto r = RunLimited(
      [&] {
        auto t = ingest::ReadTrace(path, options);
        if (t) return 10;
        std::fprintf(stderr, "%s\n", t.error().message.c_str());
        return t.error().message.find(expected) != std::string::npos ? 0 : 11;
      },
      kMemoryMb, kCpuSeconds);
  EXPECT_TRUE(r.exited) << path << ": killed by signal " << r.code;
  EXPECT_EQ(r.code, 0) << path << ": 10 = read succeeded, 11 = another error";
}

// A 3 GB JSON string in one event (a few MB of gzip) used to be buffered whole: 64 MiB at most.
TEST(HostileReaders, OneHugeStringIsCappedNotBuffered) {
  std::string block(1 << 20, 'a');
  std::string gz = Gzip(R"({"traceEvents":[{"name":")", block, 3072, R"("}]})");
  EXPECT_LT(gz.size(), 16u << 20);
  std::string path = WriteTemp("huge_string.json.gz", gz);
  ExpectReadFails(path, "longer than 64 MiB");
  fs::remove(path);
}

// 3.7 MB of gzip that inflates to 1 GB of small events: capped at 100x the input's size.
TEST(HostileReaders, GzipBombIsCappedAtAMultipleOfItsSize) {
  std::string event = R"({"ph":"X","name":"k","ts":1,"dur":1,"cat":"kernel","pid":0,"tid":7},)";
  std::string block;
  while (block.size() < (1 << 20)) block += event;
  std::string gz = Gzip(R"({"traceEvents":[)", block, 320, R"({}]})");
  std::int64_t cap = ingest::DecodedBytesCap(static_cast<std::int64_t>(gz.size()));
  ASSERT_LT(cap, 320ll << 20) << "the generated input must inflate past its cap";
  std::string path = WriteTemp("bomb.json.gz", gz);
  ExpectReadFails(path, "inflates to more than " + std::to_string(cap >> 20) + " MiB");
  fs::remove(path);
}

// 279 KB of zstd chunks reached 5.8 GB: the chunks' total is capped, not only each chunk.
TEST(HostileReaders, NativeChunksAreCappedInTotal) {
  if (!wire::ZstdAvailable()) GTEST_SKIP() << "this build has no zstd: chunks are stored, not compressed";
  ingest::native::testing::FileMaker f;
  std::vector<std::uint8_t> zeros(32 << 20);
  for (int i = 0; i < 12; ++i) {  // 384 MiB of raw payload in a file of a few KB
    for (std::size_t at = 0; at < zeros.size(); at += 8) f.Add(std::uint64_t{0});
    f.Cut(i == 11);
  }
  std::string path = WriteTemp(
      "chunks.pltrace", std::string_view(reinterpret_cast<const char*>(f.file().data()), f.file().size()));
  ExpectReadFails(path, "decompress to more than 256 MiB");
  fs::remove(path);
}

// A record whose header says it is smaller than its kind: counted, its bytes never read.
TEST(HostileReaders, NativeRecordSizesAreCheckedBeforeReads) {
  ingest::native::testing::FileMaker f;
  wire::RecordHeader short_string{wire::RecordKind::kString, sizeof(wire::RecordHeader), 0};
  f.Add(short_string);
  wire::RecordHeader short_drop{wire::RecordKind::kDrops, sizeof(wire::RecordHeader), 0};
  f.Add(short_drop);
  f.Cut(true);
  auto t = ingest::native::ReadNativeBytes(f.file().data(), f.file().size(), "short.pltrace");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->quality.Get(model::Dq::kMalformedEvent), 2);
}

// 100k cuBLAS calls and 100k launches: matched in O(n log n) (12.5 s when it was quadratic).
TEST(HostileReaders, GemmLaunchMatchingIsNotQuadratic) {
  constexpr std::uint32_t kCalls = 100'000;
  ingest::native::testing::FileMaker f;
  for (std::uint32_t i = 0; i < kCalls; ++i) {
    wire::GemmRecord g{};
    g.header = wire::HeaderFor<wire::GemmRecord>(wire::RecordKind::kGemm);
    g.start_ns = 1000 + 100ull * i;
    g.end_ns = g.start_ns + 50;
    g.m = g.n = g.k = 64;
    g.batch = 1;
    g.tid = 7;
    g.first_correlation = 1 + i;
    g.launches = 1;
    f.Add(g);
    wire::ApiRecord a{};
    a.header = wire::HeaderFor<wire::ApiRecord>(wire::RecordKind::kApi);
    a.start_ns = g.start_ns + 10;
    a.end_ns = a.start_ns + 5;
    a.tid = 7;
    a.correlation = 1 + i;
    a.domain = 1;
    f.Add(a);
    if (i % 10'000 == 9'999) f.Cut(i + 1 == kCalls);
  }
  auto r = RunLimited(
      [&] {
        auto t = ingest::native::ReadNativeBytes(f.file().data(), f.file().size(), "gemms.pltrace");
        if (!t) return 10;
        std::size_t tied = 0;
        for (std::size_t i = 0; i < t->api.size(); ++i) tied += t->api.external_id[i] != model::kNoId;
        return tied == kCalls ? 0 : 11;
      },
      kMemoryMb, 5);
  EXPECT_TRUE(r.exited) << "killed by signal " << r.code << " (SIGXCPU: over 5 CPU-seconds)";
  EXPECT_EQ(r.code, 0);
}

// An 8 KB SQLite file whose kernel table is a recursive view looped forever.
TEST(HostileReaders, SqliteViewWhereATableIsExpectedIsRefused) {
  ingest::nsys::testing::TestDb db("recursive_view.sqlite");
  db.Exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)");
  db.Exec(
      "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(start, end) AS (SELECT 1, 2 UNION ALL "
      "SELECT start + 1, end + 1 FROM r) SELECT start, end FROM r");
  db.Close();
  ExpectReadFails(db.path(), "CUPTI_ACTIVITY_KIND_KERNEL is a view");
}

// A FIFO would block a reader forever; a device never ends.
TEST(HostileReaders, FifosAndDevicesAreRefusedWithoutBlocking) {
  std::string fifo = (fs::temp_directory_path() / (std::to_string(::getpid()) + "_trace.json")).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ExpectReadFails(fifo, "a FIFO, not a regular file");
  fs::remove(fifo);
  ExpectReadFails("/dev/zero", "a character device, not a regular file");
}

TEST(HostileReaders, SymbolicLinksAreRefusedWhenAsked) {
  std::string target = WriteTemp("target.json", R"({"traceEvents":[]})");
  std::string link = target + ".link.json";
  fs::create_symlink(target, link);
  ingest::IngestOptions no_follow;
  no_follow.open.no_follow = true;
  ExpectReadFails(link, "a symbolic link: refused", no_follow);
  fs::remove(link);
  fs::remove(target);
}

}  // namespace
}  // namespace plasmient
