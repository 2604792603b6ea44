#include "collect/agent/record_sink.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "collect/agent/agent_config.h"
#include "collect/agent/trace_writer.h"
#include "collect/testing/test_child.h"
#include "wire/chunk_codec.h"

namespace plasmient::collect {
namespace {

wire::ClockSyncRecord Numbered(std::int64_t i) {
  return {wire::HeaderFor<wire::ClockSyncRecord>(wire::RecordKind::kClockSync), i, -i};
}

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "/" + name + "." + std::to_string(getpid());
}

struct ReadBack {
  wire::ScanReport report;
  std::vector<std::int64_t> numbers;  // realtime_ns of ClockSync records with negative pairs
  std::vector<std::string> strings;
  std::int64_t drops[static_cast<std::size_t>(wire::DropSource::kCount)] = {};
};

ReadBack Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  ReadBack out;
  out.report = wire::ScanChunks(
      bytes.data(), bytes.size(), [&](const wire::ChunkHeader&, const std::uint8_t* raw, std::size_t n) {
        wire::WalkRecords(raw, n, [&](const wire::RecordHeader& h, const std::uint8_t* p) {
          if (h.kind == wire::RecordKind::kClockSync) {
            wire::ClockSyncRecord r;
            std::memcpy(&r, p, sizeof r);
            if (r.monotonic_ns == -r.realtime_ns) out.numbers.push_back(r.realtime_ns);
          } else if (h.kind == wire::RecordKind::kString) {
            wire::StringRecord s;
            std::memcpy(&s, p, sizeof s);
            out.strings.emplace_back(reinterpret_cast<const char*>(p + sizeof s), s.length);
          } else if (h.kind == wire::RecordKind::kDrops) {
            wire::DropRecord d;
            std::memcpy(&d, p, sizeof d);
            if (d.source < std::size(out.drops)) {
              out.drops[d.source] = std::max(out.drops[d.source], d.cumulative);
            }
          }
        });
      });
  return out;
}

TEST(RecordSink, FullPoolDropsAndCounts) {
  // 2 blocks of 256 bytes: 10 ClockSync records (24 bytes) fit per block.
  RecordSink sink(SinkOptions{256, 2, 4});
  BlockProducer producer(sink);
  int accepted = 0;
  for (int i = 0; i < 50; ++i) accepted += producer.Append(Numbered(i)) ? 1 : 0;
  EXPECT_EQ(accepted, 20);
  EXPECT_EQ(sink.Drops(wire::DropSource::kHandOff), 30);
  // The ring holds 4 slots.
  int pushed = 0;
  for (int i = 0; i < 6; ++i) pushed += sink.PushSmall(Numbered(i)) ? 1 : 0;
  EXPECT_EQ(pushed, 4);
  EXPECT_EQ(sink.Drops(wire::DropSource::kEventRing), 2);
  // Returning drained blocks makes room again.
  producer.Flush();
  Block* b = nullptr;
  ASSERT_TRUE(sink.PopFullBlock(b));
  EXPECT_EQ(b->records, 10u);
  sink.ReleaseBlock(b);
  EXPECT_TRUE(producer.Append(Numbered(99)));
}

TEST(RecordSink, StringsArePaddedAndCut) {
  std::uint8_t buf[64];
  std::size_t n = EncodeStringRecord(5, "abc", sizeof buf, buf);
  EXPECT_EQ(n, 24u);
  wire::StringRecord s;
  std::memcpy(&s, buf, sizeof s);
  EXPECT_EQ(s.header.size_bytes, 24);
  EXPECT_EQ(s.length, 3u);
  EXPECT_EQ(buf[16 + 3], 0);
  std::string long_text(100, 'x');
  n = EncodeStringRecord(6, long_text, sizeof buf, buf);
  EXPECT_EQ(n, 64u);
  std::memcpy(&s, buf, sizeof s);
  EXPECT_EQ(s.length, 48u);
}

TEST(TraceWriter, ManyProducersEveryRecordOnDiskOrCounted) {
  std::string path = TempPath("writer");
  RecordSink sink(SinkOptions{4096, 8, 256});
  {
    TraceWriter writer(sink, WriterOptions{1, 8192, 1'000'000, 5'000'000'000});
    ASSERT_EQ(writer.Open(path), "");
    constexpr int kThreads = 4, kEach = 20000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&sink, t] {
        for (int i = 0; i < kEach; ++i) sink.PushSmall(Numbered(t * kEach + i + 1));
      });
    }
    {
      BlockProducer producer(sink);
      EXPECT_TRUE(producer.AppendString(sink.NewStringId(), "kernel_name"));
      for (int i = 0; i < kEach; ++i) producer.Append(Numbered(kThreads * kEach + i + 1));
    }
    for (auto& t : threads) t.join();
    writer.Close();
  }
  ReadBack r = Read(path);
  EXPECT_TRUE(r.report.error.empty());
  EXPECT_FALSE(r.report.truncated) << r.report.first_problem;
  EXPECT_EQ(r.report.corrupt_chunks, 0);
  std::int64_t dropped = r.drops[1] + r.drops[2];
  EXPECT_EQ(static_cast<std::int64_t>(r.numbers.size()) + dropped, 5 * 20000);
  std::sort(r.numbers.begin(), r.numbers.end());
  EXPECT_TRUE(std::adjacent_find(r.numbers.begin(), r.numbers.end()) == r.numbers.end())
      << "no record written twice";
  EXPECT_NE(std::find(r.strings.begin(), r.strings.end(), "kernel_name"), r.strings.end());
  std::remove(path.c_str());
}

// Pushes `n` numbered records through the writer by hand, a chunk per `per_chunk`.
void WriteNumbered(RecordSink& sink, TraceWriter& writer, int n, int per_chunk) {
  for (int i = 0; i < n; i += per_chunk) {
    for (int j = i; j < std::min(n, i + per_chunk); ++j) sink.PushSmall(Numbered(j + 1));
    writer.Drain();
    writer.WriteChunk(0);
  }
}

TEST(TraceWriter, SizeCapStopsTheFileAndCountsTheRest) {
  std::string path = TempPath("capped");
  RecordSink sink;
  constexpr int kRecords = 20000;
  constexpr std::uint64_t kCap = 64 << 10;
  {
    TraceWriter writer(sink, WriterOptions{0, 1 << 20, 1'000'000, 5'000'000'000, kCap});
    ASSERT_EQ(writer.Open(path, /*start_thread=*/false), "");
    WriteNumbered(sink, writer, kRecords, 500);
    writer.Close();
    EXPECT_GT(writer.records_lost(), 0u);
  }
  ReadBack r = Read(path);
  EXPECT_FALSE(r.report.truncated) << "the closing chunk is written past the cap";
  EXPECT_EQ(r.report.corrupt_chunks, 0);
  EXPECT_GT(r.numbers.size(), 0u);
  auto capped = r.drops[static_cast<std::size_t>(wire::DropSource::kSizeCap)];
  EXPECT_EQ(static_cast<std::int64_t>(r.numbers.size()) + capped, kRecords);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  EXPECT_LE(static_cast<std::uint64_t>(in.tellg()), kCap + 1024);
  std::remove(path.c_str());
}

// A disk that fails mid-run (here a file-size limit): said once on stderr with the path, the
// lost records counted, the process unharmed, the file readable up to the failure.
TEST(TraceWriter, FailedWriteIsReported) {
  std::string path = TempPath("failing");
  constexpr int kRecords = 5000;
  auto child = RunInChild([&] {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {16 << 10, 16 << 10};
    setrlimit(RLIMIT_FSIZE, &limit);
    RecordSink sink;
    TraceWriter writer(sink, WriterOptions{0, 1 << 20, 1'000'000, 5'000'000'000});
    if (!writer.Open(path, false).empty()) return 2;
    WriteNumbered(sink, writer, kRecords, 500);
    writer.Close();
    return writer.write_failed() && writer.records_lost() > 0 ? 0 : 1;
  });
  EXPECT_TRUE(child.ExitedWith(0)) << child.said;
  EXPECT_NE(child.said.find("writing " + path + " failed: File too large"), std::string::npos) << child.said;
  EXPECT_EQ(child.said.find("writing " + path + " failed", child.said.find("failed") + 1), std::string::npos)
      << "said more than once: " << child.said;
  EXPECT_NE(child.said.find("records not written"), std::string::npos) << child.said;
  ReadBack r = Read(path);
  EXPECT_EQ(r.report.corrupt_chunks, 0) << "a partly written chunk was left in the file";
  EXPECT_GT(r.numbers.size(), 0u);
  EXPECT_LT(r.numbers.size(), static_cast<std::size_t>(kRecords));
  std::remove(path.c_str());
}

// The failing disk's stand-in: while set, every write stores half of what it was given, then
// fails with ENOSPC (a full disk's partial write).
std::atomic<bool> g_disk_full{false};
ssize_t HalfThenFull(int fd, const void* data, std::size_t size) {
  if (!g_disk_full.load()) return ::write(fd, data, size);
  if (size > 1) return ::write(fd, data, size / 2);
  errno = ENOSPC;
  return -1;
}

// Writing goes on after the disk recovers: the chunks that failed are cut off and counted, their
// strings go out with the next chunk, and every record is either in the file or counted.
TEST(TraceWriter, FullDiskDropsCountedChunksAndWritingResumes) {
  std::string path = TempPath("full_disk");
  auto child = RunInChild([&] {
    RecordSink sink;
    WriterOptions options{0, 1 << 20, 1'000'000, 5'000'000'000};
    options.write_fn = &HalfThenFull;
    TraceWriter writer(sink, options);
    if (!writer.Open(path, false).empty()) return 2;
    WriteNumbered(sink, writer, 1500, 500);  // records 1-1500
    g_disk_full = true;
    sink.PushString(sink.NewStringId(), "named while the disk was full");
    WriteNumbered(sink, writer, 1500, 500);  // three chunks lost
    g_disk_full = false;
    WriteNumbered(sink, writer, 1500, 500);  // 1-1500 again
    writer.Close();
    return writer.records_lost() == 1500 ? 0 : 1;
  });
  EXPECT_TRUE(child.ExitedWith(0)) << child.said;
  std::string line = "plasmient agent: writing " + path + " failed: No space left on device";
  std::size_t at = child.said.find(line);
  EXPECT_NE(at, std::string::npos) << child.said;
  EXPECT_EQ(child.said.find(line, at + 1), std::string::npos) << "said more than once: " << child.said;

  ReadBack r = Read(path);
  EXPECT_FALSE(r.report.truncated) << "no closing chunk";
  EXPECT_EQ(r.report.corrupt_chunks, 0) << "a partly written chunk was left in the file";
  EXPECT_EQ(r.numbers.size(), 3000u);
  EXPECT_EQ(r.drops[static_cast<std::size_t>(wire::DropSource::kSpool)], 1500);
  EXPECT_NE(std::find(r.strings.begin(), r.strings.end(), "named while the disk was full"), r.strings.end());
  std::remove(path.c_str());
}

// The spool is shared: a link planted at a window's .part name is not followed (the file it
// names keeps its contents) and the window is dropped, counted.
TEST(TraceWriter, PlantedLinkInTheSpoolIsNotFollowed) {
  std::string dir = ::testing::TempDir() + "/planted_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  std::string victim = dir + "/victim", window = dir + "/w-000001.pltrace";
  { std::ofstream(victim) << "keep me"; }
  ASSERT_EQ(symlink(victim.c_str(), PartPath(window).c_str()), 0);
  RecordSink sink;
  WriterOptions options;
  options.windowed = true;
  TraceWriter writer(sink, options);
  writer.Open(window, /*start_thread=*/false, 0);
  writer.Close();
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep me") << "the planted link was followed";
  EXPECT_EQ(writer.files_dropped(), 1u);
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST(TraceWriter, UnwritableFolderIsReported) {
  RecordSink sink;
  TraceWriter writer(sink, WriterOptions{});
  std::string why = writer.Open("/nonexistent-dir/x.pltrace");
  EXPECT_NE(why.find("/nonexistent-dir/x.pltrace"), std::string::npos);
}

}  // namespace
}  // namespace plasmient::collect
