// libFuzzer target: any bytes as an nsys SQLite file. The reader must return a trace or one
// error line, never crash. SQLite reads files, so each input is written to a scratch file.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/plasmient_nsys_fuzz_" + std::to_string(getpid()) + ".sqlite";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  auto trace = plasmient::ingest::nsys::ReadNsysSqlite(path);
  if (!trace && trace.error().message.find('\n') != std::string::npos) __builtin_trap();
  return 0;
}
