// The analysis after ingest (join, pricing, sweeps, roll-ups: verdict::AnalyzeRank) of one
// trace, on 1 and 2 threads. The trace is read once: PLASMIENT_BENCH_TRACE names one, else a
// synthetic Kineto trace of PLASMIENT_BENCH_TRACE_MB megabytes (default 200) is written and read.
// Reports wall time and the process's CPU time per analysis.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ingest/read_trace.h"
#include "kineto_trace_generator.h"
#include "verdict/analyze.h"

namespace {

namespace fs = std::filesystem;

const plasmient::model::Trace& Trace() {
  static const plasmient::model::Trace trace = [] {
    std::string path;
    if (const char* given = std::getenv("PLASMIENT_BENCH_TRACE")) {
      path = given;
    } else {
      const char* env = std::getenv("PLASMIENT_BENCH_TRACE_MB");
      path = (fs::temp_directory_path() / "plasmient_analyze_bench.json").string();
      plasmient::bench::WriteSyntheticKinetoTrace(path, (env != nullptr ? std::atoll(env) : 200) << 20);
    }
    auto read = plasmient::ingest::ReadTrace(path, {});
    if (std::getenv("PLASMIENT_BENCH_TRACE") == nullptr) fs::remove(path);
    if (!read) {
      std::fprintf(stderr, "analyze_bench: %s\n", read.error().message.c_str());
      std::exit(1);
    }
    return std::move(*read);
  }();
  return trace;
}

void BM_AnalyzeRank(benchmark::State& state) {
  const plasmient::model::Trace& trace = Trace();
  plasmient::verdict::AnalyzeOptions options;
  options.rank_threads = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    auto v = plasmient::verdict::AnalyzeRank(trace, options);
    if (!v) {
      state.SkipWithError(v.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(v->run.wall_s);
  }
  state.counters["activities"] = static_cast<double>(trace.gpu.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * trace.info.input_bytes);
}

BENCHMARK(BM_AnalyzeRank)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
