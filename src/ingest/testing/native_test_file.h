// Test support: a native trace file built record by record in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wire/chunk_codec.h"
#include "wire/records.h"

namespace plasmient::ingest::native::testing {

inline constexpr std::int64_t kRealtime = 1'700'000'000'000'000'000;
inline constexpr std::int64_t kMonotonic = 1'000'000;
inline constexpr std::uint32_t kPid = 100;

inline wire::KernelRecord Kernel(std::uint64_t start, std::uint64_t end, std::uint32_t corr,
                                 std::uint32_t name) {
  wire::KernelRecord k{};
  k.header = wire::HeaderFor<wire::KernelRecord>(wire::RecordKind::kKernel);
  k.start_ns = start;
  k.end_ns = end;
  k.device = 0;
  k.stream = 7;
  k.correlation = corr;
  k.name_id = name;
  return k;
}

// A launch call of 5 µs by string 2, on process kPid.
inline wire::ApiRecord Launch(std::uint64_t start, std::uint32_t corr, std::uint32_t tid) {
  wire::ApiRecord a{};
  a.header = wire::HeaderFor<wire::ApiRecord>(wire::RecordKind::kApi);
  a.start_ns = start;
  a.end_ns = start + 5'000;
  a.pid = kPid;
  a.tid = tid;
  a.correlation = corr;
  a.cbid = 211;
  a.name_id = 2;
  a.domain = 1;
  return a;
}

// An NCCL collective (func: a string id such as "AllReduce") started on thread `tid` of kPid.
inline wire::CollectiveRecord Collective(std::uint64_t start, std::uint64_t end, std::uint64_t comm,
                                         std::uint64_t seq, std::uint32_t func, std::uint32_t tid) {
  wire::CollectiveRecord c{};
  c.header = wire::HeaderFor<wire::CollectiveRecord>(wire::RecordKind::kCollective);
  c.start_ns = start;
  c.end_ns = end;
  c.comm_hash = comm;
  c.seq = seq;
  c.func_id = func;
  c.root = c.peer = -1;
  c.pid = kPid;
  c.tid = tid;
  return c;
}

// Builds a native file record by record, one chunk per Cut().
class FileMaker {
 public:
  FileMaker() {
    auto h = wire::MakeFileHeader(kRealtime, kMonotonic);
    Bytes(&h, sizeof h, file_);
  }
  template <typename T>
  void Add(const T& r) {
    Bytes(&r, sizeof r, chunk_);
    ++records_;
  }
  void String(std::uint32_t id, const std::string& text) {
    wire::StringRecord s{};
    std::size_t padded = (text.size() + 7) & ~std::size_t{7};
    s.header = {wire::RecordKind::kString, static_cast<std::uint16_t>(sizeof s + padded), 0};
    s.id = id;
    s.length = static_cast<std::uint32_t>(text.size());
    Bytes(&s, sizeof s, chunk_);
    std::string padded_text = text;
    padded_text.resize(padded, '\0');
    Bytes(padded_text.data(), padded, chunk_);
    ++records_;
  }
  void Cut(bool last = false) {
    encoder_->Encode(chunk_.data(), chunk_.size(), records_, last ? std::uint32_t{wire::kChunkLast} : 0u,
                     file_);
    chunk_.clear();
    records_ = 0;
  }
  const std::vector<std::uint8_t>& file() const { return file_; }

 private:
  static void Bytes(const void* p, std::size_t n, std::vector<std::uint8_t>& out) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  std::unique_ptr<wire::ChunkEncoder> encoder_ = std::make_unique<wire::ChunkEncoder>(1);
  std::vector<std::uint8_t> file_, chunk_;
  std::uint32_t records_ = 0;
};

}  // namespace plasmient::ingest::native::testing
