#include "ingest/kineto_json/inflate_ahead_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <random>

#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

using testing::kNoCap;
using Drained = testing::DrainedChunks;

Drained Drain(ChunkReader& reader) { return testing::DrainChunks(reader); }

// Hands out `bytes` `chunk` at a time and counts what it handed out, so a test can see how far
// the inflating thread read.
class CountingReader final : public ChunkReader {
 public:
  CountingReader(std::string_view bytes, std::size_t chunk, std::atomic<std::int64_t>* read,
                 std::int64_t throw_at = -1)
      : memory_(bytes, chunk), read_(read), throw_at_(throw_at) {}
  Result<std::string_view> Next() override {
    if (throw_at_ >= 0 && memory_.raw_bytes_done() >= throw_at_) throw std::bad_alloc();
    auto chunk = memory_.Next();
    read_->store(memory_.raw_bytes_done());
    return chunk;
  }
  std::int64_t raw_bytes_done() const override { return memory_.raw_bytes_done(); }
  std::int64_t raw_bytes_total() const override { return memory_.raw_bytes_total(); }

 private:
  MemoryChunkReader memory_;
  std::atomic<std::int64_t>* read_;
  std::int64_t throw_at_;
};

std::unique_ptr<GzipChunkReader> Gzip(std::string_view gz, std::size_t in_chunk, std::size_t out_chunk,
                                      std::int64_t cap = kNoCap, GzipEngine engine = DefaultGzipEngine()) {
  return std::make_unique<GzipChunkReader>(std::make_unique<MemoryChunkReader>(gz, in_chunk), "t.json.gz",
                                           out_chunk, cap, engine);
}

// Text that deflate shrinks only a few times, as trace timestamps do.
std::string NoisyText(std::size_t bytes, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string text;
  while (text.size() < bytes) text += "{\"ts\":" + std::to_string(rng() % 1000000007) + "},";
  return text;
}

TEST(InflateAheadReaderTest, GivesTheChunksAndProgressOfTheGzipReader) {
  std::string text = NoisyText(200000, 1);
  std::string gz = testing::Gzip(text) + testing::Gzip("{\"second\":\"member\"}");
  for (GzipEngine engine : BuiltGzipEngines()) {
    for (std::size_t out_chunk : {1u, 7u, 4096u, 1u << 20}) {
      for (std::size_t slots : {1u, 2u, 3u, 8u}) {
        SCOPED_TRACE(std::string(GzipEngineName(engine)) + " chunk " + std::to_string(out_chunk) + " slots " +
                     std::to_string(slots));
        auto serial_reader = Gzip(gz, 1000, out_chunk, kNoCap, engine);
        Drained serial = Drain(*serial_reader);
        InflateAheadReader ahead(Gzip(gz, 1000, out_chunk, kNoCap, engine), slots);
        EXPECT_TRUE(ahead.inflates_ahead());
        Drained got = Drain(ahead);
        ASSERT_TRUE(serial.error.empty()) << serial.error;
        EXPECT_EQ(got.error, "");
        EXPECT_EQ(got.bytes, text + "{\"second\":\"member\"}");
        EXPECT_EQ(got.raw_done, serial.raw_done);
        EXPECT_EQ(ahead.raw_bytes_total(), static_cast<std::int64_t>(gz.size()));
        // The end is repeated, not waited for.
        auto again = ahead.Next();
        ASSERT_TRUE(again.has_value());
        EXPECT_TRUE(again->empty());
      }
    }
  }
}

TEST(InflateAheadReaderTest, FailsWhereAndAsTheGzipReaderFails) {
  std::string text = NoisyText(100000, 2);
  std::string gz = testing::Gzip(text);
  std::vector<std::string> broken;
  for (std::size_t cut : {std::size_t{1}, std::size_t{10}, gz.size() / 3, gz.size() - 4}) {
    broken.push_back(gz.substr(0, cut));
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 20; ++i) {
    std::string bad = gz;
    std::size_t at = rng() % bad.size();
    bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
    broken.push_back(bad);
  }
  for (GzipEngine engine : BuiltGzipEngines()) {
    for (const std::string& input : broken) {
      for (std::size_t out_chunk : {5u, 4096u}) {
        auto serial_reader = Gzip(input, 333, out_chunk, kNoCap, engine);
        Drained serial = Drain(*serial_reader);
        InflateAheadReader ahead(Gzip(input, 333, out_chunk, kNoCap, engine), 3);
        Drained got = Drain(ahead);
        EXPECT_EQ(got.bytes, serial.bytes);
        EXPECT_EQ(got.error, serial.error);
        EXPECT_EQ(got.raw_done, serial.raw_done);
        // A failure is repeated by every later call, not waited for.
        if (!serial.error.empty()) {
          auto again = ahead.Next();
          ASSERT_FALSE(again.has_value());
          EXPECT_EQ(again.error().message, serial.error);
        }
      }
    }
  }
  // Cut short, in words.
  InflateAheadReader cut(Gzip(std::string_view(gz).substr(0, gz.size() / 2), 64, 1000));
  EXPECT_NE(Drain(cut).error.find("t.json.gz: truncated gzip stream at byte"), std::string::npos);
}

TEST(InflateAheadReaderTest, StopsAtTheDecodedBytesCapAsTheGzipReaderDoes) {
  std::string gz = testing::Gzip(std::string(1 << 20, 'x'));  // ~1000x: a small bomb
  auto serial_reader = Gzip(gz, 256, 4096, 64 << 10);
  Drained serial = Drain(*serial_reader);
  ASSERT_NE(serial.error.find("inflates to more than"), std::string::npos) << serial.error;
  InflateAheadReader ahead(Gzip(gz, 256, 4096, 64 << 10));
  Drained got = Drain(ahead);
  EXPECT_EQ(got.error, serial.error);
  EXPECT_EQ(got.bytes.size(), serial.bytes.size());
  EXPECT_LE(got.bytes.size(), std::size_t{64} << 10);
}

// A consumer that stops early (the framer failed) destroys the reader: the inflating thread stops
// within the ring it may fill, and is joined.
TEST(InflateAheadReaderTest, AConsumerThatStopsEarlyStopsTheInflatingThread) {
  std::string text = NoisyText(4 << 20, 3);
  std::string gz = testing::Gzip(text);
  constexpr std::size_t kChunk = 4096;
  constexpr std::size_t kSlots = 3;
  for (int taken : {0, 1, 5}) {
    std::atomic<std::int64_t> read{0};
    {
      auto gzip = std::make_unique<GzipChunkReader>(std::make_unique<CountingReader>(gz, 1024, &read),
                                                    "t.json.gz", kChunk, kNoCap);
      InflateAheadReader ahead(std::move(gzip), kSlots);
      std::string got;
      for (int i = 0; i < taken; ++i) {
        auto chunk = ahead.Next();
        ASSERT_TRUE(chunk.has_value());
        got.append(*chunk);
      }
      EXPECT_EQ(got, text.substr(0, got.size()));
    }
    // Joined: nothing more is read. What was read inflates to at most the ring and the chunks
    // taken, far short of the input.
    std::int64_t after = read.load();
    EXPECT_LT(after, static_cast<std::int64_t>(gz.size()) / 10) << taken;
  }
}

TEST(InflateAheadReaderTest, DestroyedAtAnyPointWithoutWaiting) {
  std::string gz = testing::Gzip(NoisyText(50000, 4));
  for (int taken = 0; taken < 20; ++taken) {
    InflateAheadReader ahead(Gzip(gz, 100, 1000), 2);
    for (int i = 0; i < taken; ++i) (void)ahead.Next();
  }
  // Read to the end, then destroyed: the thread has already finished.
  InflateAheadReader ahead(Gzip(gz, 100, 1000), 2);
  EXPECT_TRUE(Drain(ahead).error.empty());
}

// An exception on the inflating thread (out of memory) reaches the consumer's thread, after the
// chunks that came before it, instead of ending the process.
TEST(InflateAheadReaderTest, AnExceptionWhileInflatingIsRethrownToTheConsumer) {
  std::string text = NoisyText(100000, 6);
  std::string gz = testing::Gzip(text);
  std::atomic<std::int64_t> read{0};
  auto gzip = std::make_unique<GzipChunkReader>(
      std::make_unique<CountingReader>(gz, 1000, &read, static_cast<std::int64_t>(gz.size() / 2)),
      "t.json.gz", 1000, kNoCap);
  InflateAheadReader ahead(std::move(gzip), 3);
  std::string got;
  bool thrown = false;
  try {
    while (true) {
      auto chunk = ahead.Next();
      ASSERT_TRUE(chunk.has_value());
      if (chunk->empty()) break;
      got.append(*chunk);
    }
  } catch (const std::bad_alloc&) {
    thrown = true;
  }
  EXPECT_TRUE(thrown);
  EXPECT_GT(got.size(), 0u);
  EXPECT_EQ(got, text.substr(0, got.size()));
  EXPECT_THROW((void)ahead.Next(), std::bad_alloc);  // and again
}

}  // namespace
}  // namespace plasmient::ingest
