#include "collect/agent/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "collect/agent/clock.h"

namespace plasmient::collect {

TraceWriter::TraceWriter(RecordSink& sink, const WriterOptions& options)
    : sink_(sink), options_(options), encoder_(options.zstd_level) {
  pending_.reserve(options_.chunk_raw_bytes + sink_.block_bytes());
}

TraceWriter::~TraceWriter() { Close(); }

std::string TraceWriter::Open(const std::string& path, bool start_thread) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return path + ": cannot create trace file: " + strerror(errno);
  wire::FileHeader h = wire::MakeFileHeader(RealtimeNs(), static_cast<std::int64_t>(MonotonicNs()));
  if (!WriteAll(reinterpret_cast<const std::uint8_t*>(&h), sizeof h)) {
    return path + ": cannot write trace file header: " + strerror(errno);
  }
  AppendDropsAndClock(/*force_clock=*/true);
  if (start_thread) thread_ = std::thread([this] { Run(); });
  return {};
}

void TraceWriter::Run() {
  std::uint64_t last_tick_ns = MonotonicNs();
  while (!stop_.load(std::memory_order_acquire)) {
    std::size_t moved = Drain();
    std::uint64_t now = MonotonicNs();
    if (pending_records_ > 0 && (pending_.size() >= options_.chunk_raw_bytes ||
                                 now - oldest_pending_ns_ >= options_.flush_interval_ns)) {
      AppendDropsAndClock(false);
      WriteChunk(0);
    }
    if (tick_ && now - last_tick_ns >= 100'000'000) {
      tick_();
      last_tick_ns = now;
    }
    if (moved == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::size_t TraceWriter::Drain() {
  std::size_t moved = 0;
  auto note = [this](std::uint32_t n) {
    if (pending_records_ == 0) oldest_pending_ns_ = MonotonicNs();
    pending_records_ += n;
  };
  Block* block = nullptr;
  while (pending_.size() < options_.chunk_raw_bytes && sink_.PopFullBlock(block)) {
    pending_.insert(pending_.end(), block->data, block->data + block->used);
    note(block->records);
    moved += block->records;
    sink_.ReleaseBlock(block);
  }
  Slot slot;
  while (pending_.size() < options_.chunk_raw_bytes && sink_.PopSmall(slot)) {
    pending_.insert(pending_.end(), slot.data, slot.data + slot.bytes);
    note(1);
    ++moved;
  }
  return moved;
}

void TraceWriter::AppendDropsAndClock(bool force_clock) {
  for (std::size_t s = 0; s < static_cast<std::size_t>(wire::DropSource::kCount); ++s) {
    std::int64_t n = sink_.Drops(static_cast<wire::DropSource>(s));
    if (n == drops_reported_[s]) continue;
    drops_reported_[s] = n;
    wire::DropRecord r{};
    r.header = wire::HeaderFor<wire::DropRecord>(wire::RecordKind::kDrops);
    r.source = static_cast<std::uint16_t>(s);
    r.cumulative = n;
    const auto* p = reinterpret_cast<const std::uint8_t*>(&r);
    pending_.insert(pending_.end(), p, p + sizeof r);
    ++pending_records_;
    ++pending_meta_;
  }
  std::uint64_t now = MonotonicNs();
  if (force_clock || now - last_clock_sync_ns_ >= options_.clock_sync_interval_ns) {
    last_clock_sync_ns_ = now;
    wire::ClockSyncRecord r{wire::HeaderFor<wire::ClockSyncRecord>(wire::RecordKind::kClockSync),
                            RealtimeNs(), static_cast<std::int64_t>(now)};
    const auto* p = reinterpret_cast<const std::uint8_t*>(&r);
    pending_.insert(pending_.end(), p, p + sizeof r);
    ++pending_records_;
    ++pending_meta_;
  }
}

void TraceWriter::DiscardPending() {
  if (!capped_) {
    capped_ = true;
    std::fprintf(stderr,
                 "plasmient agent: %s reached its size cap (%llu bytes); further records are counted, "
                 "not written\n",
                 path_.c_str(), static_cast<unsigned long long>(options_.max_bytes));
  }
  sink_.CountDrops(wire::DropSource::kSizeCap, pending_records_ - pending_meta_);
  records_lost_ += pending_records_ - pending_meta_;
  pending_.clear();
  pending_records_ = pending_meta_ = 0;
  for (auto& n : drops_reported_) n = -1;  // the discarded drop records go out again
}

void TraceWriter::WriteChunk(std::uint32_t flags) {
  if (pending_records_ == 0 && (flags & wire::kChunkLast) == 0) return;
  out_.clear();
  encoder_.Encode(pending_.data(), pending_.size(), pending_records_, flags, out_);
  bool last = (flags & wire::kChunkLast) != 0;
  if (!last && options_.max_bytes > 0 && bytes_written_ + out_.size() > options_.max_bytes) {
    DiscardPending();
    return;
  }
  if (fd_ >= 0 && !write_failed_) {
    if (!WriteAll(out_.data(), out_.size())) {
      write_failed_ = true;
      std::fprintf(stderr, "plasmient agent: writing %s failed: %s; the trace ends at its last chunk\n",
                   path_.c_str(), strerror(errno));
    }
  }
  if (write_failed_) {
    records_lost_ += pending_records_;
  } else {
    records_written_ += pending_records_;
    bytes_written_ += out_.size();
  }
  pending_.clear();
  pending_records_ = pending_meta_ = 0;
}

void TraceWriter::Close() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_release);
    thread_.join();
  }
  if (fd_ < 0) return;
  if (tick_) tick_();
  while (Drain() > 0) {
    if (pending_.size() >= options_.chunk_raw_bytes) WriteChunk(0);
  }
  if (capped_ && pending_records_ > 0) DiscardPending();
  AppendDropsAndClock(true);
  WriteChunk(wire::kChunkLast);
  if (write_failed_) {
    std::fprintf(stderr, "plasmient agent: %s: %llu records not written\n", path_.c_str(),
                 static_cast<unsigned long long>(records_lost_));
  }
  ::close(fd_);
  fd_ = -1;
}

bool TraceWriter::WriteAll(const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace plasmient::collect
