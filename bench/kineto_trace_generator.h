// A synthetic Kineto trace that looks like PyTorch profiler output (same layout, categories,
// argument keys, name lengths and event mix as the real traces), for ingest benchmarks.
#pragma once

#include <cstdint>
#include <string>

namespace plasmient::bench {

struct GeneratedTrace {
  std::int64_t events = 0;
  std::int64_t bytes = 0;
};

// Writes about `target_bytes` of uncompressed JSON to `path`.
GeneratedTrace WriteSyntheticKinetoTrace(const std::string& path, std::int64_t target_bytes);

}  // namespace plasmient::bench
