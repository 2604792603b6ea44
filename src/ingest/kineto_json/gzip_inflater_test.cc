#include "ingest/kineto_json/gzip_inflater.h"

#include <gtest/gtest.h>

#include <random>

#include "ingest/kineto_json/chunk_reader.h"
#include "ingest/kineto_json/kineto_json_reader.h"
#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

using testing::kNoCap;
using Drained = testing::DrainedChunks;

// Inflates `gz` through `engine`, compressed input handed over `in_chunk` bytes at a time.
Drained Inflate(std::string_view gz, GzipEngine engine, std::size_t in_chunk, std::size_t out_chunk,
                std::int64_t cap = kNoCap, const std::string& name = "t.json.gz") {
  GzipChunkReader reader(std::make_unique<MemoryChunkReader>(gz, in_chunk), name, out_chunk, cap, engine);
  return testing::DrainChunks(reader);
}

// JSON-like text with some repetition, as traces have, and some noise, as timestamps are.
std::string TraceLikeText(std::size_t events, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string text = "{\"traceEvents\":[";
  for (std::size_t i = 0; i < events; ++i) {
    text += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k" + std::to_string(rng() % 50) +
            "\",\"ts\":" + std::to_string(rng() % 1000000000) + ",\"dur\":" + std::to_string(rng() % 5000) +
            "},";
  }
  text += "{}]}";
  return text;
}

class GzipEngineTest : public ::testing::TestWithParam<GzipEngine> {};

TEST_P(GzipEngineTest, RoundTripsForAnyChunkSizes) {
  std::string text = TraceLikeText(3000, 1);
  for (int level : {0, 1, 6, 9}) {
    std::string gz = testing::Gzip(text, level);
    for (std::size_t in_chunk : {1u, 13u, 4096u, 1u << 20}) {
      for (std::size_t out_chunk : {1u, 999u, 1u << 20}) {
        if (in_chunk == 1 && out_chunk == 1 && level != 6) continue;  // slow; once is enough
        Drained d = Inflate(gz, GetParam(), in_chunk, out_chunk);
        EXPECT_EQ(d.error, "");
        EXPECT_TRUE(d.bytes == text) << "level " << level << " in " << in_chunk << " out " << out_chunk;
      }
    }
  }
}

TEST_P(GzipEngineTest, ReadsEveryMemberOfConcatenatedGzip) {
  std::string a = TraceLikeText(500, 2), b = "", c = TraceLikeText(40, 3);
  std::string gz = testing::Gzip(a, 1) + testing::Gzip(b) + testing::Gzip(c, 9) + testing::Gzip("]", 0);
  for (std::size_t in_chunk : {1u, 7u, 100u, 1u << 20}) {
    Drained d = Inflate(gz, GetParam(), in_chunk, 4096);
    EXPECT_EQ(d.error, "") << in_chunk;
    EXPECT_TRUE(d.bytes == a + b + c + "]") << in_chunk;
  }
}

// A member's end read ahead into the next one across a chunk boundary: the engine hands the
// bytes it read past the trailer back, and the next member starts with them (found by fuzzing).
TEST_P(GzipEngineTest, MemberBoundaryFallsAnywhereInAChunk) {
  std::string a = TraceLikeText(60, 6), b = TraceLikeText(20, 7);
  std::string gz = testing::Gzip(a, 6) + testing::Gzip(b, 1) + testing::Gzip(a, 9);
  for (std::size_t in_chunk = 8; in_chunk <= 80; ++in_chunk) {
    for (std::size_t out_chunk : {5u, 4096u}) {
      Drained d = Inflate(gz, GetParam(), in_chunk, out_chunk);
      EXPECT_EQ(d.error, "") << "in " << in_chunk << " out " << out_chunk;
      EXPECT_TRUE(d.bytes == a + b + a) << "in " << in_chunk << " out " << out_chunk;
    }
  }
  // Trailing bytes too few to be a member are an error, never read past.
  for (std::size_t in_chunk = 8; in_chunk <= 24; ++in_chunk) {
    Drained d = Inflate(testing::Gzip(a) + "garbage", GetParam(), in_chunk, 4096);
    EXPECT_FALSE(d.error.empty()) << in_chunk;
  }
}

// Corrupt deflate data (a distance too far back) read 39 bytes at a time: ISA-L stops with bytes
// read ahead from an earlier chunk. Found by the fuzz smoke; it must fail in one line, not overrun.
// Each member's header is read with a header struct of Plasmient's (ISA-L 2.30's own gzip mode
// reads one it leaves uninitialised), so every engine and chunking gives the same words.
TEST_P(GzipEngineTest, CorruptDataReadInSmallChunksFailsCleanly) {
  std::string hex =
      "1f8b08089d20782dcbaa422efac3418fdd381b47f1a6a37751e2ce2f57701ba10b026b54f45b143d66f1da65e0147258"
      "ad5c2eef6b5d067765ac3b95cb9a211b0e6ee52c6ee3acf23a47cf2ea0f302af1efa46676001149e2ba7baaa63d972f4"
      "0d760d55764cbd95b36a1b67f1c9ceb2c46751388e237f3c852cf7c6c4f3c66e948e533f1c9fe8b0a519baac1876e5b0"
      "03898cd556ee6a03e9116e69309e9354e0777f90e8f169aa4ee2b94e67d1ec275dbaaaba0c3292faab2cf375dfd07fc6"
      "74119b8fe1249dcda6932ce3b867895028fe7ee49deb17fef4602c5306457751dc5c44a19b5046d15508155c940789bf"
      "5dfe0775d203fc2da0f202c04d9db3457cce78faf8a197b970359eb8510675711e9dff20e7a7b822c72b696d6942dc47"
      "1a7a6be6b84c80446c155301741a44c0363cdfbf18b9242089809ebf34022d5ebe99f41d83e7184435170feb372efdc5"
      "46d1823ca38bfbdbbb2b34c9a653c8b1d4ff4961ce6f5fff0ab9f616081c5b7b40dfab1cfe07ba71dda0bc05684b1264"
      "c0380734a76cce8fe44528c942e4cefdc04371a9eb8dd038e64b686e22c66d871c4e37f677a3219a7e23e18cf6272675"
      "983a8f0cc6587d40774572a6bcf7f30b3f4466fa6616acb585273f08100d3d6ec17ac1023ec282a600bbb77985e53630"
      "ba800e97f7acb732a1399509ea21d5127d3affb2458a3e62c552d164c568fa42f73dca9e633ca0a2f08911261da2af19"
      "3b8ba66709cf10481798fa892fa304fc58ad878ad388208021f12a845cf63d449f19da380798e6aff1e870f851ae106c"
      "88fc03c97d489f63ea727d17f7979f10155f1929de12f52a65511c8398922458fd934bdec661a8cc4a9e25342d1ca7de"
      "f0cd74f304d91987601e82fc72dc4ba57c10105f94b929069ec56a5c9c45178fe53f527e089d37f3fc340ec8ea0e027e"
      "1ffa629ab24873d184a4943fbf216194821fa1c7871e6ca996a56b585595f2e7c35f1ffe07bf70db2d05410000";
  std::string gz;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    gz.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  for (std::size_t in_chunk : {39u, 8u, 64u, 4096u}) {
    Drained d = Inflate(gz, GetParam(), in_chunk, 4096, kNoCap, "fuzz.json.gz");
    // The words are exact; the byte is where the engine noticed, which its read-ahead moves.
    constexpr std::string_view kMessage =
        "fuzz.json.gz: corrupt gzip data (invalid distance too far back) at byte ";
    ASSERT_TRUE(d.error.starts_with(kMessage)) << in_chunk << ": " << d.error;
    std::size_t at = std::stoul(d.error.substr(kMessage.size()));
    EXPECT_GT(at, gz.size() / 2) << in_chunk;
    EXPECT_LE(at, gz.size()) << in_chunk;
    EXPECT_EQ(d.error.find('\n'), std::string::npos);
  }
}

// gzip with every optional header field (extra, name, comment, header CRC), as zlib writes it.
std::string GzipWithFullHeader(std::string_view text) {
  std::string extra(
      "XY\x04\0"
      "abcd",
      8),
      name = "trace.json", comment = "written by a test";
  gz_header header{};
  header.extra = reinterpret_cast<Bytef*>(extra.data());
  header.extra_len = static_cast<uInt>(extra.size());
  header.name = reinterpret_cast<Bytef*>(name.data());
  header.comment = reinterpret_cast<Bytef*>(comment.data());
  header.hcrc = 1;
  return testing::Gzip(text, 6, &header);
}

// Headers carry optional fields, and a header may arrive a byte at a time.
TEST_P(GzipEngineTest, ReadsEveryOptionalHeaderFieldAcrossChunks) {
  std::string text = TraceLikeText(100, 8);
  std::string gz = GzipWithFullHeader(text) + testing::Gzip("]");
  ASSERT_EQ(static_cast<unsigned char>(gz[3]), 0x1e);  // FHCRC | FEXTRA | FNAME | FCOMMENT
  for (std::size_t in_chunk : {1u, 2u, 3u, 11u, 4096u}) {
    Drained d = Inflate(gz, GetParam(), in_chunk, 1000);
    EXPECT_EQ(d.error, "") << in_chunk;
    EXPECT_TRUE(d.bytes == text + "]") << in_chunk;
  }
  std::string bad_header_crc = gz;
  std::size_t crc_at = gz.find("written by a test") + std::string_view("written by a test").size() + 1;
  bad_header_crc[crc_at] ^= 0x11;
  Drained d = Inflate(bad_header_crc, GetParam(), 7, 1000, kNoCap, "hcrc.json.gz");
  EXPECT_TRUE(d.error.starts_with("hcrc.json.gz: corrupt gzip data (")) << d.error;
}

TEST_P(GzipEngineTest, EveryCutShortStreamFailsInOneLineNamingTheFile) {
  std::string gz = testing::Gzip("first member ") + testing::Gzip(TraceLikeText(30, 4));
  std::size_t first = testing::Gzip("first member ").size();
  for (std::size_t cut = 1; cut < gz.size(); ++cut) {
    if (cut == first) continue;  // a whole first member: valid on its own
    Drained d = Inflate(std::string_view(gz).substr(0, cut), GetParam(), 5, 64, kNoCap, "cut.json.gz");
    ASSERT_FALSE(d.error.empty()) << cut;
    EXPECT_EQ(d.error.find('\n'), std::string::npos);
    EXPECT_EQ(d.error, "cut.json.gz: truncated gzip stream at byte " + std::to_string(cut)) << cut;
  }
}

TEST_P(GzipEngineTest, CorruptDataAndTrailersFail) {
  std::string text = TraceLikeText(200, 5);
  std::string gz = testing::Gzip(text);
  std::string bad_crc = gz;
  bad_crc[gz.size() - 6] ^= 0x5a;  // inside the trailer's CRC-32
  Drained d = Inflate(bad_crc, GetParam(), 512, 4096, kNoCap, "crc.json.gz");
  EXPECT_TRUE(d.error.starts_with("crc.json.gz: corrupt gzip data (")) << d.error;
  EXPECT_NE(d.error.find(") at byte "), std::string::npos) << d.error;

  std::string bad_size = gz;
  bad_size[gz.size() - 1] ^= 0x01;  // the trailer's length
  EXPECT_NE(Inflate(bad_size, GetParam(), 512, 4096).error, "");

  std::string garbage = gz + "not gzip at all";
  EXPECT_TRUE(Inflate(garbage, GetParam(), 512, 4096).error.find("corrupt gzip data") != std::string::npos);

  std::string bad_method = gz;
  bad_method[2] = 7;  // compression method: only 8 (deflate) exists
  EXPECT_NE(Inflate(bad_method, GetParam(), 512, 4096).error, "");
}

TEST_P(GzipEngineTest, StopsAtTheDecodedBytesCap) {
  std::string gz = testing::Gzip(std::string(4 << 20, 'x'));
  Drained d = Inflate(gz, GetParam(), 4096, 1 << 20, 2 << 20, "bomb.json.gz");
  EXPECT_TRUE(d.error.starts_with("bomb.json.gz: inflates to more than 2 MiB")) << d.error;
  EXPECT_LE(d.bytes.size(), std::size_t{2} << 20);
}

INSTANTIATE_TEST_SUITE_P(Built, GzipEngineTest, ::testing::ValuesIn(BuiltGzipEngines()),
                         [](const auto& info) { return info.param == GzipEngine::kIsal ? "isal" : "zlib"; });

TEST(GzipEngineChoiceTest, IsalWhenBuiltAndZlibAlways) {
  EXPECT_TRUE(HaveGzipEngine(GzipEngine::kZlib));
  EXPECT_EQ(DefaultGzipEngine() == GzipEngine::kIsal, HaveGzipEngine(GzipEngine::kIsal));
  EXPECT_TRUE(GzipEngineName(GzipEngine::kZlib).starts_with("zlib "));
  if (HaveGzipEngine(GzipEngine::kIsal)) {
    EXPECT_TRUE(GzipEngineName(GzipEngine::kIsal).starts_with("ISA-L igzip "));
  }
}

std::vector<std::filesystem::path> SharedGzipTraces() {
  std::vector<std::filesystem::path> out;
  for (const auto& trace : testing::SharedTracesOf("kineto-json.gz")) out.push_back(trace.path);
  return out;
}

// Both engines inflate every real gzip trace to the same bytes.
TEST(GzipEngineRealTracesTest, EnginesAgreeByteForByte) {
  auto files = SharedGzipTraces();
  if (files.empty()) GTEST_SKIP() << "shared traces not found: set PLASMIENT_SHARED_TRACES";
  if (!HaveGzipEngine(GzipEngine::kIsal)) GTEST_SKIP() << "built without ISA-L: zlib is the only engine";
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::string gz = testing::ReadWholeFile(path);
    Drained zlib = Inflate(gz, GzipEngine::kZlib, 1 << 20, 8 << 20);
    Drained isal = Inflate(gz, GzipEngine::kIsal, 1 << 20, 8 << 20);
    ASSERT_EQ(zlib.error, "");
    ASSERT_EQ(isal.error, "");
    EXPECT_TRUE(zlib.bytes == isal.bytes);
  }
}

// Reading a real gzip trace (the default engine) gives the same rows as reading the text zlib
// inflated from it: the engine changes nothing downstream.
TEST(GzipEngineRealTracesTest, DefaultEngineGivesTheRowsOfTheZlibText) {
  auto files = SharedGzipTraces();
  if (files.empty()) GTEST_SKIP() << "shared traces not found: set PLASMIENT_SHARED_TRACES";
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    Drained zlib = Inflate(testing::ReadWholeFile(path), GzipEngine::kZlib, 1 << 20, 8 << 20);
    ASSERT_EQ(zlib.error, "");
    auto from_file = ReadKinetoJson(path.string());
    auto from_text = ReadKinetoJsonBuffer(zlib.bytes, path.string());
    ASSERT_EQ(from_file.has_value(), from_text.has_value());
    if (!from_file) {
      EXPECT_EQ(from_file.error().message, from_text.error().message);
      continue;
    }
    const model::Trace &a = *from_file, &b = *from_text;
    EXPECT_EQ(a.info.events, b.info.events);
    EXPECT_EQ(a.info.input_bytes, static_cast<std::int64_t>(zlib.bytes.size()));
    testing::ExpectSameRows(a, b);
  }
}

}  // namespace
}  // namespace plasmient::ingest
