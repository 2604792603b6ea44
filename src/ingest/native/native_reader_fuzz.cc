// libFuzzer target: any bytes through ReadNativeBytes must give a Trace or a one-line error
// naming the input; never a crash, hang or sanitizer report. Each input is read twice: as given
// (the checksums turn most mutations away at the chunk layer) and with its framing repaired
// (every chunk's length set to the bytes before the next chunk magic, every checksum recomputed),
// so that mutations reach the record decoder and the row builder behind it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/native/native_reader.h"
#include "wire/crc32c.h"
#include "wire/file_format.h"

namespace {

namespace wire = plasmient::wire;

const std::string kPath = "fuzz.pltrace";

void Check(const std::uint8_t* data, std::size_t size) {
  auto trace = plasmient::ingest::native::ReadNativeBytes(data, size, kPath);
  if (!trace) {
    std::string_view m = trace.error().message;
    if (!m.starts_with(kPath + ": ") || m.find('\n') != std::string_view::npos) std::abort();
  } else if (trace->info.format != "plasmient-native" ||
             trace->info.input_bytes != static_cast<std::int64_t>(size)) {
    std::abort();
  }
}

// The offset of the next chunk magic at or after `from`, or `size`.
std::size_t NextMagic(const std::vector<std::uint8_t>& b, std::size_t from) {
  for (std::size_t p = from; p + sizeof wire::kChunkMagic <= b.size(); ++p) {
    std::uint32_t m;
    std::memcpy(&m, b.data() + p, sizeof m);
    if (m == wire::kChunkMagic) return p;
  }
  return b.size();
}

// Rewrites lengths and checksums so that the chunk layer accepts what the mutation made.
// False when there is nothing to repair (no whole file header).
bool Repair(std::vector<std::uint8_t>& b) {
  if (b.size() < sizeof(wire::FileHeader)) return false;
  wire::FileHeader fh;
  std::memcpy(&fh, b.data(), sizeof fh);
  std::memcpy(fh.magic, wire::kFileMagic, sizeof fh.magic);
  fh.header_crc = wire::Crc32c(&fh, offsetof(wire::FileHeader, header_crc));
  std::memcpy(b.data(), &fh, sizeof fh);
  std::size_t pos = NextMagic(b, sizeof fh);
  while (pos + sizeof(wire::ChunkHeader) <= b.size()) {
    wire::ChunkHeader h;
    std::memcpy(&h, b.data() + pos, sizeof h);
    std::size_t body = pos + sizeof h;
    std::size_t next = NextMagic(b, body);
    h.stored_bytes = static_cast<std::uint32_t>(next - body);
    if ((h.flags & wire::kChunkZstd) == 0) h.raw_bytes = h.stored_bytes;
    h.payload_crc = wire::Crc32c(b.data() + body, h.stored_bytes);
    h.header_crc = wire::Crc32c(&h, offsetof(wire::ChunkHeader, header_crc));
    std::memcpy(b.data() + pos, &h, sizeof h);
    pos = next;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Check(data, size);
  std::vector<std::uint8_t> repaired(data, data + size);
  if (Repair(repaired) && std::memcmp(repaired.data(), data, size) != 0) {
    Check(repaired.data(), repaired.size());
  }
  return 0;
}
