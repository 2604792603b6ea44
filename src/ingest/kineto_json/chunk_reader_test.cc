#include "ingest/kineto_json/chunk_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

std::string Drain(ChunkReader& reader) { return testing::DrainChunks(reader).bytes; }

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
  auto cut = MemoryChunkReaderFor(std::string_view(gz).substr(0, gz.size() / 2), "cut.gz", 64, &is_gzip);
  std::string error = testing::DrainChunks(*cut).error;
  EXPECT_NE(error.find("cut.gz"), std::string::npos);
  EXPECT_NE(error.find("truncated gzip"), std::string::npos);

  std::string bad = gz;
  for (std::size_t i = 12; i < 40 && i < bad.size(); ++i) bad[i] = static_cast<char>(0xff);
  auto corrupt = MemoryChunkReaderFor(bad, "bad.gz", 64, &is_gzip);
  error = testing::DrainChunks(*corrupt).error;
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

// A temporary file that is removed when the test ends.
struct TempFile {
  explicit TempFile(const std::string& name, std::string_view bytes)
      : path(std::filesystem::temp_directory_path() / name) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() { std::filesystem::remove(path); }
  std::filesystem::path path;
};

std::int64_t ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stoll(line.substr(6));
  }
  return -1;
}

TEST(ChunkReaderTest, PlainFilesAreMappedAndReadWholeForAnyChunkSize) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "{\"ph\":\"X\",\"i\":" + std::to_string(i) + "},";
  TempFile file("plasmient_mapped_reader_test.json", text);
  for (std::size_t chunk : {1u, 4095u, 4096u, 4097u, 1u << 20}) {
    bool is_gzip = true;
    auto reader = OpenChunkReader(file.path.string(), chunk, &is_gzip);
    ASSERT_TRUE(reader.has_value());
    EXPECT_FALSE(is_gzip);
    EXPECT_NE(dynamic_cast<MappedChunkReader*>(reader->get()), nullptr);
    EXPECT_EQ(Drain(**reader), text) << chunk;
    EXPECT_EQ((*reader)->raw_bytes_done(), static_cast<std::int64_t>(text.size()));
  }
  TempFile empty("plasmient_mapped_reader_empty.json", "");  // nothing to map: read(2) says empty
  bool is_gzip = true;
  auto reader = OpenChunkReader(empty.path.string(), 4096, &is_gzip);
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ(Drain(**reader), "");
}

// The windows already handed out leave memory: reading a 64 MiB file 1 MiB at a time, touching
// every byte, never holds much more than a window.
TEST(ChunkReaderTest, MappedFileHoldsAboutOneWindowInMemory) {
  constexpr std::size_t kFileBytes = 64u << 20, kWindow = 1u << 20;
  std::string text(kFileBytes, 'x');
  for (std::size_t i = 0; i < kFileBytes; i += 4096) text[i] = static_cast<char>('a' + i / 4096 % 26);
  TempFile file("plasmient_mapped_reader_rss.json", text);
  text = std::string();
  auto mapped = InputFile::Open(file.path.string());
  ASSERT_TRUE(mapped.has_value());
  std::int64_t size = mapped->size();
  auto reader = MappedChunkReader::Map(mapped->fd(), file.path.string(), size, kWindow);
  ASSERT_NE(reader, nullptr);
  mapped->Release();
  std::int64_t before_kib = ResidentKiB(), peak_kib = before_kib;
  std::uint64_t sum = 0, expected = 0;
  for (std::size_t i = 0; i < kFileBytes; i += 4096)
    expected += static_cast<unsigned char>('a' + i / 4096 % 26);
  while (true) {
    auto chunk = reader->Next();
    ASSERT_TRUE(chunk.has_value());
    if (chunk->empty()) break;
    for (std::size_t i = 0; i < chunk->size(); i += 4096) sum += static_cast<unsigned char>((*chunk)[i]);
    peak_kib = std::max(peak_kib, ResidentKiB());
  }
  EXPECT_EQ(sum, expected);
  EXPECT_LT(peak_kib - before_kib, 8 << 10) << "peak growth in KiB over a 64 MiB file";
}

TEST(ChunkReaderTest, MappedFileThatShrinksFailsNamingIt) {
  TempFile file("plasmient_mapped_reader_shrinks.json", std::string(1 << 20, 'x'));
  bool is_gzip = true;
  auto reader = OpenChunkReader(file.path.string(), 64 << 10, &is_gzip);
  ASSERT_TRUE(reader.has_value());
  ASSERT_TRUE((*reader)->Next().has_value());
  std::filesystem::resize_file(file.path, 100 << 10);
  auto next = (*reader)->Next();
  ASSERT_FALSE(next.has_value());
  EXPECT_EQ(next.error().message,
            file.path.string() + ": the file shrank to 102400 bytes while it was read at byte 65536");
}

}  // namespace
}  // namespace plasmient::ingest
