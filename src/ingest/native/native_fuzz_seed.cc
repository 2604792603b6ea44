// Makes a seed for native_reader_fuzz from a native file: the same header and records, in
// uncompressed chunks of at most a few KB (a mutation inside a zstd frame rarely decodes, one in
// a stored chunk reaches the records), cut after about MAX_BYTES, the last chunk flagged so.
//   native_fuzz_seed IN OUT [MAX_BYTES=16384]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "wire/chunk_codec.h"
#include "wire/file_format.h"

namespace wire = plasmient::wire;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: native_fuzz_seed IN OUT [MAX_BYTES]\n");
    return 2;
  }
  std::size_t max_bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 16384;
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::size_t kChunkBytes = 2048;
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> pending;
  std::uint32_t pending_records = 0;
  wire::ChunkEncoder encoder(0);
  bool full = false;
  auto flush = [&](std::uint32_t flags) {
    if (pending.empty() && flags == 0) return;
    encoder.Encode(pending.data(), pending.size(), pending_records, flags, out);
    pending.clear();
    pending_records = 0;
  };
  wire::ScanReport scan = wire::ScanChunks(
      file.data(), file.size(), [&](const wire::ChunkHeader&, const std::uint8_t* raw, std::size_t n) {
        wire::WalkRecords(raw, n, [&](const wire::RecordHeader& h, const std::uint8_t* p) {
          if (full) return;
          pending.insert(pending.end(), p, p + h.size_bytes);
          ++pending_records;
          if (pending.size() >= kChunkBytes) flush(0);
          full = out.size() + pending.size() >= max_bytes;
        });
      });
  if (!scan.error.empty()) {
    std::fprintf(stderr, "native_fuzz_seed: %s: %s\n", argv[1], scan.error.c_str());
    return 1;
  }
  flush(wire::kChunkLast);
  std::vector<std::uint8_t> seed(reinterpret_cast<const std::uint8_t*>(&scan.header),
                                 reinterpret_cast<const std::uint8_t*>(&scan.header) + sizeof scan.header);
  seed.insert(seed.end(), out.begin(), out.end());
  std::ofstream o(argv[2], std::ios::binary);
  o.write(reinterpret_cast<const char*>(seed.data()), static_cast<std::streamsize>(seed.size()));
  return o ? 0 : 1;
}
