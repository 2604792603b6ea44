// Ingest throughput: a synthetic Kineto trace (plain and gzip) read end to end by
// ReadKinetoJson. Reports bytes/s of uncompressed JSON.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <zlib.h>

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

const fs::path& GzipTrace() {
  static const fs::path path = [] {
    fs::path p = fs::temp_directory_path() / "plasmient_ingest_bench.json.gz";
    std::FILE* in = std::fopen(PlainTrace().c_str(), "rb");
    gzFile out = gzopen(p.c_str(), "wb6");
    std::string buffer(1 << 20, '\0');
    std::size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), in)) > 0)
      gzwrite(out, buffer.data(), static_cast<unsigned>(n));
    gzclose(out);
    std::fclose(in);
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

BENCHMARK(BM_IngestKinetoJson)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_IngestKinetoJsonGzip)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_InflateGzip)
    ->Arg(128 << 10)
    ->Arg(1 << 20)
    ->Arg(8 << 20)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
