#include "ingest/kineto_json/gzip_inflater.h"

#include <gtest/gtest.h>

#include <random>

#include <simdjson.h>

#include "ingest/kineto_json/chunk_reader.h"
#include "ingest/kineto_json/kineto_json_reader.h"
#include "ingest/kineto_json/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

constexpr std::int64_t kNoCap = std::int64_t{1} << 40;

struct Drained {
  std::string bytes;
  std::string error;  // empty when the input read to its end
};

// Inflates `gz` through `engine`, compressed input handed over `in_chunk` bytes at a time.
Drained Inflate(std::string_view gz, GzipEngine engine, std::size_t in_chunk, std::size_t out_chunk,
                std::int64_t cap = kNoCap, const std::string& name = "t.json.gz") {
  GzipChunkReader reader(std::make_unique<MemoryChunkReader>(gz, in_chunk), name, out_chunk, cap, engine);
  Drained out;
  while (true) {
    auto chunk = reader.Next();
    if (!chunk) {
      out.error = chunk.error().message;
      return out;
    }
    if (chunk->empty()) return out;
    out.bytes.append(*chunk);
  }
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

std::vector<GzipEngine> BuiltEngines() {
  std::vector<GzipEngine> out;
  for (GzipEngine e : {GzipEngine::kZlib, GzipEngine::kIsal}) {
    if (HaveGzipEngine(e)) out.push_back(e);
  }
  return out;
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

INSTANTIATE_TEST_SUITE_P(Built, GzipEngineTest, ::testing::ValuesIn(BuiltEngines()),
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
  auto dir = testing::SharedTraces();
  if (dir.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element manifest;
  if (parser.load((dir / "manifest.json").string()).get(manifest) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element e : manifest.get_array()) {
    std::string_view format, file;
    if (e["format"].get_string().get(format) || format != "kineto-json.gz") continue;
    if (e["file"].get_string().get(file) == simdjson::SUCCESS) out.push_back(dir / file);
  }
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
    EXPECT_EQ(a.gpu.start_ns, b.gpu.start_ns);
    EXPECT_EQ(a.gpu.end_ns, b.gpu.end_ns);
    EXPECT_EQ(a.gpu.correlation, b.gpu.correlation);
    ASSERT_EQ(a.gpu.size(), b.gpu.size());
    for (std::size_t i = 0; i < a.gpu.size(); ++i) ASSERT_EQ(a.Str(a.gpu.name[i]), b.Str(b.gpu.name[i])) << i;
    EXPECT_EQ(a.api.start_ns, b.api.start_ns);
    EXPECT_EQ(a.api.correlation, b.api.correlation);
    EXPECT_EQ(a.cpu.start_ns, b.cpu.start_ns);
    EXPECT_EQ(a.cpu.end_ns, b.cpu.end_ns);
    EXPECT_EQ(a.cpu.step, b.cpu.step);
    EXPECT_EQ(a.collectives.seq, b.collectives.seq);
    EXPECT_EQ(a.samples.value, b.samples.value);
  }
}

}  // namespace
}  // namespace plasmient::ingest
