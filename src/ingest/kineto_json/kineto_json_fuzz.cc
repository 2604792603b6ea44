// libFuzzer target: any bytes through ReadKinetoJsonBuffer must give a Trace or a one-line
// error naming the input and a byte offset; never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ingest/kineto_json/kineto_json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  plasmient::ingest::IngestOptions options;
  options.threaded = false;             // deterministic and cheap per input
  options.chunk_bytes = 1 + size % 97;  // chunk boundaries land everywhere
  options.batch_bytes = 256;
  auto trace = plasmient::ingest::ReadKinetoJsonBuffer(bytes, "fuzz.json", options);
  if (!trace) {
    std::string_view m = trace.error().message;
    if (!m.starts_with("fuzz.json: ") || m.find(" at byte ") == std::string_view::npos ||
        m.find('\n') != std::string_view::npos) {
      std::abort();
    }
  } else if (trace->info.input_bytes < 2) {
    std::abort();  // a trace needs at least "[]"
  }
  return 0;
}
