#include "wire/chunk_codec.h"

#include <cstddef>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "wire/crc32c.h"

namespace plasmient::wire {
namespace {

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c("", 0), 0u);
  std::vector<std::uint8_t> zeros(32, 0);
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);  // RFC 3720 B.4
  // Continuing over two halves equals one pass.
  const char* text = "The quick brown fox jumps over the lazy dog";
  std::size_t n = std::strlen(text);
  EXPECT_EQ(Crc32c(text + 20, n - 20, Crc32c(text, 20)), Crc32c(text, n));
  // The hardware path and the table path agree at every length and alignment.
  std::vector<std::uint8_t> bytes(300);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + 3);
  for (std::size_t off = 0; off < 9; ++off) {
    for (std::size_t len = 0; len + off <= bytes.size(); len += 13) {
      ASSERT_EQ(Crc32c(bytes.data() + off, len, 5), Crc32cPortableForTest(bytes.data() + off, len, 5));
    }
  }
  EXPECT_EQ(Crc32cPortableForTest("123456789", 9), 0xE3069283u);
}

// A payload of `records` ClockSyncRecords whose fields identify them.
std::vector<std::uint8_t> Payload(int first, int records) {
  std::vector<std::uint8_t> out;
  for (int i = 0; i < records; ++i) {
    ClockSyncRecord r{HeaderFor<ClockSyncRecord>(RecordKind::kClockSync), first + i, -(first + i)};
    const auto* p = reinterpret_cast<const std::uint8_t*>(&r);
    out.insert(out.end(), p, p + sizeof r);
  }
  return out;
}

std::vector<std::uint8_t> MakeFile(int level, int chunks, int per_chunk) {
  FileHeader h = MakeFileHeader(1'700'000'000'000'000'000, 42);
  std::vector<std::uint8_t> file(reinterpret_cast<std::uint8_t*>(&h),
                                 reinterpret_cast<std::uint8_t*>(&h) + sizeof h);
  ChunkEncoder enc(level);
  for (int c = 0; c < chunks; ++c) {
    auto p = Payload(c * per_chunk, per_chunk);
    enc.Encode(p.data(), p.size(), per_chunk, c + 1 == chunks ? std::uint32_t{kChunkLast} : 0u, file);
  }
  return file;
}

struct Read {
  ScanReport report;
  std::vector<std::int64_t> values;
};

Read ReadAll(const std::vector<std::uint8_t>& file, std::size_t size) {
  Read out;
  out.report =
      ScanChunks(file.data(), size, [&](const ChunkHeader& h, const std::uint8_t* raw, std::size_t n) {
        EXPECT_TRUE(WalkRecords(raw, n, [&](const RecordHeader& rh, const std::uint8_t* rec) {
          ASSERT_EQ(rh.kind, RecordKind::kClockSync);
          ClockSyncRecord r;
          std::memcpy(&r, rec, sizeof r);
          EXPECT_EQ(r.monotonic_ns, -r.realtime_ns);
          out.values.push_back(r.realtime_ns);
        }));
      });
  return out;
}

TEST(ChunkCodec, RoundTripCompressedAndStored) {
  for (int level : {0, 1}) {
    auto file = MakeFile(level, 5, 100);
    Read r = ReadAll(file, file.size());
    ASSERT_TRUE(r.report.error.empty()) << r.report.error;
    EXPECT_EQ(r.report.chunks_ok, 5);
    EXPECT_FALSE(r.report.truncated) << r.report.first_problem;
    EXPECT_EQ(r.report.corrupt_chunks, 0);
    std::vector<std::int64_t> want(500);
    std::iota(want.begin(), want.end(), 0);
    EXPECT_EQ(r.values, want);
  }
  if (ZstdAvailable()) {
    EXPECT_LT(MakeFile(1, 5, 100).size(), MakeFile(0, 5, 100).size());
  }
}

// Chunks whose (checksummed) sequence numbers claim gaps past int64 (found by native_reader_fuzz):
// the missing count saturates, every chunk is still read.
TEST(ChunkCodec, HugeSequenceGapsSaturateTheMissingCount) {
  std::vector<std::uint8_t> file;
  FileHeader fh = MakeFileHeader(0, 0);
  const auto* fb = reinterpret_cast<const std::uint8_t*>(&fh);
  file.insert(file.end(), fb, fb + sizeof fh);
  ChunkEncoder enc(0);
  std::uint8_t payload[16] = {};
  const std::uint64_t sequences[] = {5'652'692'054'301'220'920ull, 0, 11'305'384'108'602'441'840ull,
                                     ~0ull - 1};
  for (std::uint64_t seq : sequences) {
    std::size_t at = file.size();
    enc.Encode(payload, sizeof payload, 0, 0, file);
    ChunkHeader h;
    std::memcpy(&h, file.data() + at, sizeof h);
    h.sequence = seq;
    h.header_crc = Crc32c(&h, offsetof(ChunkHeader, header_crc));
    std::memcpy(file.data() + at, &h, sizeof h);
  }
  int chunks = 0;
  ScanReport r = ScanChunks(file.data(), file.size(),
                            [&](const ChunkHeader&, const std::uint8_t*, std::size_t) { ++chunks; });
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(chunks, 4);
  EXPECT_EQ(r.missing_sequence, std::numeric_limits<std::int64_t>::max());
}

TEST(ChunkCodec, CutAtEveryByteKeepsCompleteChunks) {
  const int per_chunk = 7;
  for (int level : {0, 3}) {
    auto file = MakeFile(level, 4, per_chunk);
    // Chunk end offsets, to know how many complete chunks each cut keeps.
    std::vector<std::size_t> ends;
    std::size_t pos = sizeof(FileHeader);
    while (pos < file.size()) {
      ChunkHeader h;
      std::memcpy(&h, file.data() + pos, sizeof h);
      pos += sizeof h + h.stored_bytes;
      ends.push_back(pos);
    }
    ASSERT_EQ(ends.size(), 4u);
    for (std::size_t cut = 0; cut < file.size(); ++cut) {
      Read r = ReadAll(file, cut);
      ASSERT_TRUE(r.report.error.empty()) << "cut " << cut << ": " << r.report.error;
      std::size_t complete = 0;
      while (complete < ends.size() && ends[complete] <= cut) ++complete;
      EXPECT_EQ(r.report.chunks_ok, static_cast<std::int64_t>(complete)) << "cut " << cut;
      EXPECT_EQ(r.values.size(), complete * per_chunk) << "cut " << cut;
      EXPECT_TRUE(r.report.truncated) << "cut " << cut;
      EXPECT_EQ(r.report.corrupt_chunks, 0) << "cut " << cut;
    }
  }
}

TEST(ChunkCodec, FlippedByteSkipsOnlyThatChunk) {
  auto file = MakeFile(1, 3, 50);
  ChunkHeader first;
  std::memcpy(&first, file.data() + sizeof(FileHeader), sizeof first);
  // A byte inside the first payload: that chunk is corrupt, the others read.
  auto bad_payload = file;
  bad_payload[sizeof(FileHeader) + sizeof(ChunkHeader) + first.stored_bytes / 2] ^= 0x5a;
  Read r = ReadAll(bad_payload, bad_payload.size());
  EXPECT_EQ(r.report.corrupt_chunks, 1);
  EXPECT_EQ(r.report.chunks_ok, 2);
  EXPECT_EQ(r.values.size(), 100u);
  EXPECT_NE(r.report.first_problem.find("checksum"), std::string::npos);
  // A byte inside the first chunk header: the reader resynchronises at the next chunk.
  auto bad_header = file;
  bad_header[sizeof(FileHeader) + 9] ^= 0x01;
  r = ReadAll(bad_header, bad_header.size());
  EXPECT_EQ(r.report.corrupt_chunks, 1);
  EXPECT_EQ(r.report.chunks_ok, 2);
  EXPECT_EQ(r.values.front(), 50);
}

TEST(ChunkCodec, RejectsOtherFiles) {
  std::vector<std::uint8_t> junk(200, 'x');
  EXPECT_FALSE(ScanChunks(junk.data(), junk.size(), [](auto&&...) {}).error.empty());
  auto file = MakeFile(0, 1, 1);
  file[3] ^= 1;  // inside the magic
  EXPECT_NE(ScanChunks(file.data(), file.size(), [](auto&&...) {}).error.find("magic"), std::string::npos);
}

TEST(ChunkCodec, WalkRecordsStopsAtBadRecord) {
  auto p = Payload(0, 3);
  RecordHeader bad{RecordKind::kClockSync, 4, 0};  // smaller than a header
  std::memcpy(p.data() + sizeof(ClockSyncRecord), &bad, sizeof bad);
  int seen = 0;
  EXPECT_FALSE(WalkRecords(p.data(), p.size(), [&](auto&&...) { ++seen; }));
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace plasmient::wire
