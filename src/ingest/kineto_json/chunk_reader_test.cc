#include "ingest/kineto_json/chunk_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ingest/kineto_json/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

std::string Drain(ChunkReader& reader, std::string* error = nullptr) {
  std::string out;
  while (true) {
    auto chunk = reader.Next();
    if (!chunk) {
      if (error) *error = chunk.error().message;
      return out;
    }
    if (chunk->empty()) return out;
    out.append(*chunk);
  }
}

TEST(ChunkReaderTest, GzipDetectedByContent) {
  EXPECT_TRUE(LooksLikeGzip(testing::Gzip("{}")));
  EXPECT_FALSE(LooksLikeGzip("{\"traceEvents\":[]}"));
  EXPECT_FALSE(LooksLikeGzip("\x1f"));
  EXPECT_FALSE(LooksLikeGzip(""));
}

TEST(ChunkReaderTest, MemoryAndGzipGiveTheSameBytesForAnyChunkSize) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "{\"ph\":\"X\",\"i\":" + std::to_string(i) + "},";
  std::string gz = testing::Gzip(text);
  for (std::size_t chunk : {1u, 7u, 4096u, 1u << 20}) {
    bool is_gzip = true;
    auto plain = MemoryChunkReaderFor(text, "t", chunk, &is_gzip);
    EXPECT_FALSE(is_gzip);
    EXPECT_EQ(Drain(*plain), text);
    auto zipped = MemoryChunkReaderFor(gz, "t", chunk, &is_gzip);
    EXPECT_TRUE(is_gzip);
    EXPECT_EQ(Drain(*zipped), text) << chunk;
  }
}

TEST(ChunkReaderTest, ConcatenatedGzipMembersAreRead) {
  std::string gz = testing::Gzip("hello ") + testing::Gzip("world");
  bool is_gzip = false;
  auto reader = MemoryChunkReaderFor(gz, "t", 3, &is_gzip);
  EXPECT_EQ(Drain(*reader), "hello world");
}

TEST(ChunkReaderTest, TruncatedAndCorruptGzipFail) {
  std::string gz = testing::Gzip(std::string(10000, 'x'));
  bool is_gzip = false;
  std::string error;
  auto cut = MemoryChunkReaderFor(std::string_view(gz).substr(0, gz.size() / 2), "cut.gz", 64, &is_gzip);
  Drain(*cut, &error);
  EXPECT_NE(error.find("cut.gz"), std::string::npos);
  EXPECT_NE(error.find("truncated gzip"), std::string::npos);

  std::string bad = gz;
  for (std::size_t i = 12; i < 40 && i < bad.size(); ++i) bad[i] = static_cast<char>(0xff);
  error.clear();
  auto corrupt = MemoryChunkReaderFor(bad, "bad.gz", 64, &is_gzip);
  Drain(*corrupt, &error);
  EXPECT_NE(error.find("bad.gz"), std::string::npos);
  EXPECT_NE(error.find("at byte"), std::string::npos);
}

TEST(ChunkReaderTest, FileReaderReadsPlainAndGzipFiles) {
  auto dir = std::filesystem::temp_directory_path();
  auto plain_path = dir / "plasmient_chunk_reader_test.json";
  auto gz_path = dir / "plasmient_chunk_reader_test.bin";  // no .gz: detection is by content
  std::string text(100000, 'a');
  std::ofstream(plain_path, std::ios::binary) << text;
  std::ofstream(gz_path, std::ios::binary) << testing::Gzip(text);
  bool is_gzip = true;
  auto plain = OpenChunkReader(plain_path.string(), 4096, &is_gzip);
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(is_gzip);
  EXPECT_EQ(Drain(**plain), text);
  EXPECT_EQ((*plain)->raw_bytes_done(), 100000);
  auto zipped = OpenChunkReader(gz_path.string(), 4096, &is_gzip);
  ASSERT_TRUE(zipped.has_value());
  EXPECT_TRUE(is_gzip);
  EXPECT_EQ(Drain(**zipped), text);
  auto missing = OpenChunkReader((dir / "plasmient_no_such_file.json").string(), 4096, &is_gzip);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("plasmient_no_such_file.json"), std::string::npos);
  std::filesystem::remove(plain_path);
  std::filesystem::remove(gz_path);
}

}  // namespace
}  // namespace plasmient::ingest
