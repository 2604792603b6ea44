// ingest_tool FILE...: reads Kineto traces and prints table sizes, data-quality counters and
// timing; for whole-process measurement (/usr/bin/time -v) of the ingest path.
// ingest_tool --make-trace FILE MB: writes a synthetic Kineto trace of about MB megabytes.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "ingest/kineto_json/kineto_json_reader.h"
#include "kineto_trace_generator.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ingest_tool FILE...\n");
    return 2;
  }
  if (std::string(argv[1]) == "--make-trace" && argc == 4) {
    auto made = plasmient::bench::WriteSyntheticKinetoTrace(argv[2], std::atoll(argv[3]) << 20);
    fmt::print("{}: {} events, {} bytes\n", argv[2], made.events, made.bytes);
    return made.bytes > 0 ? 0 : 1;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto trace = plasmient::ingest::ReadKinetoJson(argv[i]);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!trace) {
      fmt::print("error: {}\n", trace.error().message);
      rc = 1;
      continue;
    }
    const auto& t = *trace;
    fmt::print("{}: {} events, {} bytes ({}), {:.3f} s, {:.1f} MB/s\n", argv[i], t.info.events,
               t.info.input_bytes, t.info.format, seconds,
               static_cast<double>(t.info.input_bytes) / 1e6 / seconds);
    fmt::print("  gpu {} api {} cpu {} collectives {} samples {} devices {} strings {}\n", t.gpu.size(),
               t.api.size(), t.cpu.size(), t.collectives.size(), t.samples.size(), t.devices.size(),
               t.strings.size());
    fmt::print("  rank {} world {} backend '{}' base_time_ns {}\n", t.info.rank, t.info.world_size,
               t.info.backend, t.info.base_time_ns);
    for (const auto& [id, n] : t.quality.NonZero()) {
      fmt::print("  dq {} = {}\n", plasmient::model::Describe(id).name, n);
    }
  }
  return rc;
}
