// Ingest throughput: a synthetic Kineto trace (plain and gzip) read end to end by
// ReadKinetoJson. Reports bytes/s of uncompressed JSON. The stage benchmarks below it give each
// stage of the read alone, on one thread, in CPU time: framing, simdjson's stage 1 over the
// batches, stage 1 with the reader's walk over each event, and stage 1 with the least walk that
// still reads each event's fields (simdjson's own floor for this trace; docs/performance.md,
// "What one core can do").
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>
#include <zlib.h>

#include "ingest/kineto_json/event_batch.h"
#include "ingest/kineto_json/event_batch_index.h"
#include "ingest/kineto_json/event_framer.h"
#include "ingest/kineto_json/event_parser.h"
#include "ingest/kineto_json/kineto_json_reader.h"
#include "kineto_trace_generator.h"

namespace {

namespace fs = std::filesystem;

// The trace size in MB: PLASMIENT_BENCH_TRACE_MB, default 200 (about 600k events).
std::int64_t TraceBytes() {
  const char* env = std::getenv("PLASMIENT_BENCH_TRACE_MB");
  return (env != nullptr ? std::atoll(env) : 200) << 20;
}

const fs::path& PlainTrace() {
  static const fs::path path = [] {
    fs::path p = fs::temp_directory_path() / "plasmient_ingest_bench.json";
    plasmient::bench::WriteSyntheticKinetoTrace(p.string(), TraceBytes());
    return p;
  }();
  return path;
}

// The plain trace's text, read once.
const std::string& PlainText() {
  static const std::string text = [] {
    std::string out;
    std::FILE* in = std::fopen(PlainTrace().c_str(), "rb");
    std::string buffer(1 << 20, '\0');
    std::size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), in)) > 0) out.append(buffer.data(), n);
    std::fclose(in);
    return out;
  }();
  return text;
}

const fs::path& GzipTrace() {
  static const fs::path path = [] {
    fs::path p = fs::temp_directory_path() / "plasmient_ingest_bench.json.gz";
    gzFile out = gzopen(p.c_str(), "wb6");
    const std::string& text = PlainText();
    constexpr std::size_t kPiece = 1 << 20;
    for (std::size_t at = 0; at < text.size(); at += kPiece) {
      std::string_view piece = std::string_view(text).substr(at, kPiece);
      gzwrite(out, piece.data(), static_cast<unsigned>(piece.size()));
    }
    gzclose(out);
    return p;
  }();
  return path;
}

void Run(benchmark::State& state, const fs::path& path) {
  std::int64_t bytes = 0;
  for (auto _ : state) {
    auto trace = plasmient::ingest::ReadKinetoJson(path.string());
    if (!trace) {
      state.SkipWithError(trace.error().message.c_str());
      return;
    }
    bytes += trace->info.input_bytes;
    state.counters["events"] = static_cast<double>(trace->info.events);
    benchmark::DoNotOptimize(trace->gpu.size());
  }
  state.SetBytesProcessed(bytes);
}

void BM_IngestKinetoJson(benchmark::State& state) { Run(state, PlainTrace()); }
void BM_IngestKinetoJsonGzip(benchmark::State& state) { Run(state, GzipTrace()); }

// Inflating alone, on this thread, into chunks of state.range(0) bytes: what the chunk size costs
// the inflating thread (decode and CRC writing and reading output that stays in cache, or not).
// CPU time, so other load on the machine counts less.
void BM_InflateGzip(benchmark::State& state) {
  std::int64_t bytes = 0;
  for (auto _ : state) {
    bool gzip = false;
    auto reader = plasmient::ingest::OpenChunkReader(GzipTrace().string(),
                                                     static_cast<std::size_t>(state.range(0)), &gzip);
    if (!reader) {
      state.SkipWithError(reader.error().message.c_str());
      return;
    }
    while (true) {
      auto chunk = (*reader)->Next();
      if (!chunk) {
        state.SkipWithError(chunk.error().message.c_str());
        return;
      }
      if (chunk->empty()) break;
      bytes += static_cast<std::int64_t>(chunk->size());
    }
  }
  state.SetBytesProcessed(bytes);
}

// Frames `text` in 1 MiB chunks into batches of the reader's size; `keep` keeps them.
std::int64_t Frame(const std::string& text, std::vector<plasmient::ingest::EventBatch>* keep) {
  using plasmient::ingest::EventBatch;
  plasmient::ingest::EventFramer framer("bench", 1 << 20, [&](EventBatch& batch) {
    if (keep != nullptr) keep->push_back(std::exchange(batch, EventBatch{}));
    batch.Clear();
    return true;
  });
  constexpr std::size_t kChunk = 1 << 20;
  for (std::size_t at = 0; at < text.size(); at += kChunk) {
    if (!framer.Feed(std::string_view(text).substr(at, kChunk))) return -1;
  }
  if (!framer.Finish()) return -1;
  return framer.bytes();
}

// The plain trace framed once into batches (about the trace's size in memory).
std::vector<plasmient::ingest::EventBatch>& Batches() {
  static std::vector<plasmient::ingest::EventBatch> batches = [] {
    std::vector<plasmient::ingest::EventBatch> out;
    Frame(PlainText(), &out);
    return out;
  }();
  return batches;
}

std::int64_t BatchBytes() {
  std::int64_t bytes = 0;
  for (const auto& batch : Batches()) bytes += static_cast<std::int64_t>(batch.json.size());
  return bytes;
}

// Stage 1 over `batch` with one parser, which goes from batch to batch as a parsing thread's slots
// would share theirs (one parser each would hold a few GB of buffers here).
class Indexer {
 public:
  void Index(plasmient::ingest::EventBatch& batch, benchmark::State& state) {
    if (last_ != nullptr) index_ = std::move(last_->index);
    batch.index = std::move(index_);
    if (batch.index) batch.index->doc = {};
    if (!batch.Index()) state.SkipWithError("stage 1 failed on a batch");
    last_ = &batch;
  }

 private:
  std::unique_ptr<plasmient::ingest::BatchIndex> index_;
  plasmient::ingest::EventBatch* last_ = nullptr;  // holds the parser until the next batch
};

// Framing alone: the 64-byte scan, the prefilter, the copy into batches.
void BM_StageFrame(benchmark::State& state) {
  std::int64_t bytes = 0;
  for (auto _ : state) {
    std::int64_t n = Frame(PlainText(), nullptr);
    if (n < 0) {
      state.SkipWithError("framing failed");
      return;
    }
    bytes += n;
  }
  state.SetBytesProcessed(bytes);
}

// simdjson's stage 1 (the structural index) over every batch.
void BM_StageIndex(benchmark::State& state) {
  auto& batches = Batches();
  Indexer indexer;
  for (auto _ : state) {
    for (auto& batch : batches) indexer.Index(batch, state);
  }
  state.SetBytesProcessed(state.iterations() * BatchBytes());
}

// Stage 1 and the reader's walk: every batch to rows, as a parsing thread does.
void BM_StageIndexAndParse(benchmark::State& state) {
  auto& batches = Batches();
  plasmient::ingest::EventParser parser;
  plasmient::ingest::BatchRows rows;
  Indexer indexer;
  for (auto _ : state) {
    for (auto& batch : batches) {
      indexer.Index(batch, state);
      parser.ParseBatch(batch, rows);
      benchmark::DoNotOptimize(rows.order.size());
    }
  }
  state.SetBytesProcessed(state.iterations() * BatchBytes());
}

// Stage 1 and the least walk that reads every event: each key, each number and string of the
// top level as simdjson gives it, each key of args; no rows, no checks. What any reader built
// on simdjson's On-Demand spends at least.
void BM_StageIndexAndLeastWalk(benchmark::State& state) {
  namespace od = simdjson::ondemand;
  auto& batches = Batches();
  Indexer indexer;
  for (auto _ : state) {
    std::int64_t sum = 0;
    for (auto& batch : batches) {
      indexer.Index(batch, state);
      od::array events;
      if (batch.index->doc.get_array().get(events) != simdjson::SUCCESS) {
        state.SkipWithError("not an array");
        return;
      }
      for (auto event : events) {
        od::object object;
        if (event.get_object().get(object) != simdjson::SUCCESS) continue;
        for (auto field : object) {
          std::string_view key;
          if (field.unescaped_key().get(key) != simdjson::SUCCESS) break;
          od::value value = field.value();
          od::json_type type;
          if (value.type().get(type) != simdjson::SUCCESS) break;
          if (type == od::json_type::number) {
            double d = 0;
            if (value.get_double().get(d) == simdjson::SUCCESS) sum += static_cast<std::int64_t>(d);
          } else if (type == od::json_type::string) {
            std::string_view text;
            if (value.get_string().get(text) == simdjson::SUCCESS)
              sum += static_cast<std::int64_t>(text.size());
          } else if (type == od::json_type::object) {
            for (auto arg : value.get_object()) {
              std::string_view arg_key;
              if (arg.unescaped_key().get(arg_key) == simdjson::SUCCESS)
                sum += static_cast<std::int64_t>(arg_key.size());
            }
          }
        }
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(state.iterations() * BatchBytes());
}

BENCHMARK(BM_IngestKinetoJson)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_IngestKinetoJsonGzip)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_InflateGzip)
    ->Arg(128 << 10)
    ->Arg(1 << 20)
    ->Arg(8 << 20)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(BM_StageFrame)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_StageIndex)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_StageIndexAndParse)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_StageIndexAndLeastWalk)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
