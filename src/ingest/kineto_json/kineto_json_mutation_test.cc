// Robustness: thousands of random mutations and truncations of a real trace (or, when the
// shared traces are absent, of an inline one) must give either a Trace or a one-line error
// naming the input and a byte offset — never a crash, never a partial result for a cut file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "ingest/kineto_json/chunk_reader.h"
#include "ingest/kineto_json/kineto_json_reader.h"
#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

constexpr std::string_view kFallback = R"j({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "G"}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 100.5, "dur": 20,
   "args": {"External id": 7, "Input Dims": [[8, 512], [512, 1024]], "Input type": ["float", "float"]}},
  {"ph": "X", "cat": "kernel", "name": "k\"{", "pid": 0, "tid": "stream 7", "ts": 120.25, "dur": 30.125,
   "args": {"device": 0, "stream": 7, "correlation": 99, "Collective name": "allreduce", "In msg nelems": 4}},
  {"ph": "C", "name": "c", "pid": 0, "ts": 130, "args": {"v": 1}}
 ], "baseTimeNanoseconds": 1700000000000000000, "distributedInfo": {"rank": 1}})j";

// A small real trace (the tiny HTA event-sync one), when the shared traces are there.
std::string Seed() {
  auto dir = testing::SharedTraces();
  if (dir.empty()) return std::string(kFallback);
  auto path = dir / "hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz";
  if (!std::filesystem::exists(path)) return std::string(kFallback);
  std::string gz = testing::ReadWholeFile(path);
  bool is_gzip = false;
  auto reader = MemoryChunkReaderFor(gz, "seed", 1 << 16, &is_gzip);
  std::string text;
  while (true) {
    auto chunk = reader->Next();
    if (!chunk || chunk->empty()) break;
    text.append(*chunk);
  }
  return text;
}

void ExpectTraceOrCleanError(std::string_view bytes) {
  IngestOptions options;
  options.chunk_bytes = 257;
  options.batch_bytes = 1024;
  auto trace = ReadKinetoJsonBuffer(bytes, "mutant.json", options);
  if (!trace) {
    const std::string& m = trace.error().message;
    ASSERT_EQ(m.rfind("mutant.json: ", 0), 0u) << m;
    ASSERT_NE(m.find(" at byte "), std::string::npos) << m;
    ASSERT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(KinetoJsonMutationTest, EveryTruncationIsAnError) {
  std::string seed = Seed();
  ASSERT_TRUE(ReadKinetoJsonBuffer(seed, "seed").has_value());
  // Cutting anywhere before the final '}' must fail: no partial traces.
  std::size_t last = seed.find_last_of('}');
  std::size_t step = std::max<std::size_t>(1, last / 1500);
  for (std::size_t cut = 0; cut < last; cut += step) {
    auto trace = ReadKinetoJsonBuffer(std::string_view(seed).substr(0, cut), "cut.json");
    ASSERT_FALSE(trace.has_value()) << "cut at " << cut;
    EXPECT_NE(trace.error().message.find("cut.json: "), std::string::npos);
  }
}

TEST(KinetoJsonMutationTest, RandomMutationsNeverCrash) {
  std::string seed = Seed();
  const char kInteresting[] = "{}[]\",:\\0123456789.-eE \n\x1f\x8b\xff";
  // PLASMIENT_MUTATION_ROUNDS raises the count for a long sanitizer run (no libFuzzer here).
  const char* env = std::getenv("PLASMIENT_MUTATION_ROUNDS");
  const int rounds = env != nullptr ? std::atoi(env) : 3000;
  const char* seed_env = std::getenv("PLASMIENT_MUTATION_SEED");
  std::mt19937_64 rng(seed_env != nullptr ? std::strtoull(seed_env, nullptr, 10) : 20261130);
  for (int round = 0; round < rounds; ++round) {
    std::string m = seed;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits && !m.empty(); ++e) {
      std::size_t pos = rng() % m.size();
      switch (rng() % 4) {
        case 0:
          m[pos] = kInteresting[rng() % (sizeof(kInteresting) - 1)];
          break;
        case 1:
          m.erase(pos, 1 + rng() % 16);
          break;
        case 2:
          m.insert(pos, 1, kInteresting[rng() % (sizeof(kInteresting) - 1)]);
          break;
        case 3:
          m.insert(pos, m.substr(rng() % m.size(), 1 + rng() % 64));
          break;
      }
    }
    ExpectTraceOrCleanError(m);
    if (round % 10 == 0) ExpectTraceOrCleanError(testing::Gzip(m));
  }
}

}  // namespace
}  // namespace plasmient::ingest
